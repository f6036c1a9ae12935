#!/usr/bin/env bash
# Builds and runs every test: the C++ suites (GoogleTest) and the Python ones (pytest).
# GPU tests run when a GPU is present and are reported as skipped otherwise.
# Ends with one line: 'N passed, N failed, N skipped'.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
python=$(bash "$root/scripts/build.sh" | tail -n 1) || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
tests=(test_argument_encoding test_variant_cache test_cuda_backend test_compile_bridge test_launch_path test_gpu_launch)
for t in "${tests[@]}"; do
  echo "== $t"
  "$build/bin/$t" --gtest_output="json:$results/$t.json" 2>&1 | grep -E '^\[  (FAILED|SKIPPED|PASSED) |Failure|error' || true
done
echo "== pytest"
TRITON_JIT_BUILD_DIR="$build" "$python" -m pytest -q -rs "$root/tests/python" --junitxml="$results/pytest.xml" 2>&1 | tail -n 20
"$python" "$root/scripts/summarize_tests.py" "$results" "${tests[@]}" pytest
