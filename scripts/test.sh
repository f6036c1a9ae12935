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
# The concurrent parts again under ThreadSanitizer (core only: no torch, no GPU needed).
tsan_build="$build-tsan"
tsan_tests=(test_variant_cache test_launch_path)
echo "== ThreadSanitizer build"
if cmake -S "$root" -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITON_JIT_PYTHON="$python" \
     -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_BENCHMARKS=OFF -DCMAKE_CXX_FLAGS=-fsanitize=thread \
     -DCMAKE_EXE_LINKER_FLAGS=-fsanitize=thread -DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread \
     -DCMAKE_MODULE_LINKER_FLAGS=-fsanitize=thread > "$results/../tsan-configure.log" 2>&1 &&
   cmake --build "$tsan_build" --target "${tsan_tests[@]}" > "$results/../tsan-build.log" 2>&1; then
  for t in "${tsan_tests[@]}"; do
    echo "== $t (ThreadSanitizer)"
    TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$tsan_build/bin/$t" \
      --gtest_output="json:$results/tsan_$t.json" 2>&1 | grep -E '^\[  (FAILED|SKIPPED|PASSED) |WARNING: ThreadSanitizer|SUMMARY' || true
  done
else
  echo "ThreadSanitizer build failed; see $build/tsan-*.log"
fi
tests+=("${tsan_tests[@]/#/tsan_}")

echo "== pytest"
TRITON_JIT_BUILD_DIR="$build" "$python" -m pytest -q -rs "$root/tests/python" --junitxml="$results/pytest.xml" 2>&1 | tail -n 20
"$python" "$root/scripts/summarize_tests.py" "$results" "${tests[@]}" pytest
