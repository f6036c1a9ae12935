#!/usr/bin/env bash
# The GPU verification in one call, for a machine with a GPU and a preinstalled Python that has
# torch and triton (no internet): builds against that Python, runs the whole test suite, the
# demo and the benchmarks, and keeps every log under $OUT (or ./gpu-logs).
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
export TRITON_JIT_PYTHON=${TRITON_JIT_PYTHON:-$(command -v python3)}
export TRITON_JIT_BUILD_DIR=${TRITON_JIT_BUILD_DIR:-$root/build-gpu}
export CMAKE_BUILD_TYPE=Release
export PYTHONUNBUFFERED=1
export TRITON_JIT_SKIP_PACKAGING=1  # packaging is checked in CI; this machine has no package mirror

{
  echo "== machine"
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$TRITON_JIT_PYTHON" -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
  nvcc --version | tail -n 2
  g++ --version | head -n 1
} 2>&1 | tee "$out/machine.txt"

echo "== tests"
bash "$root/scripts/test.sh" 2>&1 | tee "$out/tests.txt"
echo "== demo"
demo_cache="$TRITON_JIT_BUILD_DIR/demo-cache"
rm -rf "$demo_cache"
TRITON_JIT_CACHE_DIR="$demo_cache" "$TRITON_JIT_BUILD_DIR/bin/triton_jit_demo" 2>&1 | tee "$out/demo.txt"
echo "== demo again: a fresh process, warm cache, offline, Python unusable"
TRITON_JIT_CACHE_DIR="$demo_cache" TRITON_JIT_OFFLINE=1 PYTHONHOME=/nonexistent \
  "$TRITON_JIT_BUILD_DIR/bin/triton_jit_demo" 2>&1 | tee "$out/demo-warm.txt"
if [ -x "$root/scripts/run_benchmarks.sh" ] && [ "${TRITON_JIT_SKIP_BENCHMARKS:-0}" != 1 ]; then
  echo "== benchmarks"
  bash "$root/scripts/run_benchmarks.sh" 2>&1 | tee "$out/benchmarks.txt"
fi
