#!/usr/bin/env bash
# Runs every launch benchmark (C++ with Google Benchmark, then Python) against a built tree.
# On a machine without a GPU each says it was skipped.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
python=${TRITON_JIT_PYTHON:-$root/.venv/bin/python}
"$build/bin/launch_benchmark" --benchmark_counters_tabular=true "$@"
"$python" "$root/benchmarks/python_launch_bench.py" --ops-library "$build/lib/libtriton_jit_ops.so"
if [ "${TRITON_JIT_SKIP_FIRST_LAUNCH:-0}" != 1 ]; then
  "$python" "$root/benchmarks/first_launch/first_launch.py" --build "$build" || echo "first_launch: failed"
fi
