#!/usr/bin/env bash
# Builds and runs every test: the C++ suites (GoogleTest), the HIP backend's, the CPU suites again under
# AddressSanitizer+UndefinedBehaviorSanitizer and ThreadSanitizer, the fuzz targets for a fixed
# time, the Python suites (pytest), and the Triton-facing tests against the oldest and newest
# supported Triton (scripts/test_matrix.sh) and the torch-facing ones against the oldest and newest
# supported torch (scripts/test_torch_matrix.sh). GPU tests run when a GPU is present and are reported as
# skipped otherwise. Prints each stage's time; ends with one line: 'N passed, N failed, N skipped'.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
fuzz_seconds=${TRITON_JIT_FUZZ_SECONDS:-45}
started=$SECONDS
stage_started=$SECONDS
stage() {  # stage <name>: closes the previous stage with its time, opens the next
  if [ -n "${current_stage:-}" ]; then echo "-- $current_stage: $((SECONDS - stage_started)) s"; fi
  current_stage=$1
  stage_started=$SECONDS
  [ -n "$1" ] && echo "== $1"
}

stage "build"
python=$(bash "$root/scripts/build.sh" | tail -n 1) || { echo "build failed"; echo "0 passed, 1 failed"; exit 1; }
results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
expected=()

run_gtest() {  # run_gtest <result name> <binary> [env...]
  local name=$1 binary=$2
  shift 2
  echo "== $name"
  # To a file, not a pipe: a forked child that outlives its test must not hold the output open.
  timeout 1800 env "$@" "$binary" --gtest_output="json:$results/$name.json" > "$build/$name.log" 2>&1
  grep -E '^\[  (FAILED|SKIPPED|PASSED) |Failure|ERROR: (Address|Undefined|Thread)|runtime error|WARNING: ThreadSanitizer|SUMMARY|CHECK failed' \
    "$build/$name.log" || true
  expected+=("$name")
}

stage "C++ tests"
cpu_tests=(test_argument_encoding test_variant_cache test_entry_format test_cuda_backend test_compile_bridge test_launch_path
           test_raw_launch test_decorated test_hooks test_cuda_oversized test_stand_in_policy)
for t in "${cpu_tests[@]}" test_gpu_launch test_gpu_decorated test_ops_stand_in test_gpu_production; do
  run_gtest "$t" "$build/bin/$t"
done

# The HIP backend policy (TRITON_JIT_BACKEND=hip): the core built for it, its tests against a
# stand-in runtime with real Triton compiles for gfx942 and gfx90a. No AMD GPU is needed.
stage "HIP backend build"
hip_build="$build-hip"
if cmake -S "$root" -B "$hip_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITON_JIT_PYTHON="$python" \
     -DTRITON_JIT_BACKEND=hip > "$build/hip-configure.log" 2>&1 &&
   cmake --build "$hip_build" --target test_hip_backend test_argument_encoding > "$build/hip-build.log" 2>&1; then
  stage "HIP backend tests"
  run_gtest test_hip_backend "$hip_build/bin/test_hip_backend"
  run_gtest hip_test_argument_encoding "$hip_build/bin/test_argument_encoding"
else
  echo "HIP backend build failed; see $build/hip-*.log"
  expected+=(test_hip_backend hip_test_argument_encoding)
fi

# The CPU suites again in sanitizer builds of the core (no torch, no GPU needed), each built once.
sanitized() {  # sanitized <label> <flags> <env...>
  local label=$1 flags=$2
  shift 2
  local dir="$build-$label"
  stage "$label build"
  # -O1 and line tables only: what the sanitizers' documentation advises, and compiles 2.3x faster
  # than -O2 -g under ASan+UBSan; reports still name file and line.
  local options=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
                 -DTRITON_JIT_PYTHON="$python" -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_BENCHMARKS=OFF
                 "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
                 "-DCMAKE_MODULE_LINKER_FLAGS=$flags")
  if cmake -S "$root" -B "$dir" "${options[@]}" > "$build/$label-configure.log" 2>&1 &&
     cmake --build "$dir" --target "${cpu_tests[@]}" > "$build/$label-build.log" 2>&1; then
    stage "$label tests"
    for t in "${cpu_tests[@]}"; do run_gtest "${label}_$t" "$dir/bin/$t" "$@"; done
  else
    echo "$label build failed; see $build/$label-*.log"
    for t in "${cpu_tests[@]}"; do expected+=("${label}_$t"); done
  fi
}
if [ "${TRITON_JIT_SKIP_SANITIZERS:-0}" = 1 ]; then
  echo "== sanitizer builds and fuzzing skipped (TRITON_JIT_SKIP_SANITIZERS=1); CI runs them"
else
# Leak checking is off: the embedded interpreter and Triton keep their allocations until exit.
sanitized asan "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
  ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
sanitized tsan "-fsanitize=thread" TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"

stage "fuzzing (${fuzz_seconds} s a target)"
fuzz_build="$build-fuzz"
if cmake -S "$root/fuzz" -B "$fuzz_build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ > "$build/fuzz-configure.log" 2>&1 &&
   cmake --build "$fuzz_build" > "$build/fuzz-build.log" 2>&1; then
  fuzz_one() {  # fuzz_one <target>: runs it for the set time; its verdict goes to $build/fuzz-<target>.verdict
    local target=$1 corpus
    corpus=$(mktemp -d)  # the committed seeds stay as they are; what the run finds stays here
    cp "$root/fuzz/corpus/$target"/* "$corpus"/
    if (cd "$fuzz_build" && "./${target}_fuzzer" "$corpus" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
          > "$build/fuzz-$target.log" 2>&1); then
      echo "${target}_fuzzer: clean, $(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$build/fuzz-$target.log" | grep -oE '[0-9]+$') runs" \
        > "$build/fuzz-$target.verdict"
      echo "{\"testsuites\": [{\"testsuite\": [{\"name\": \"${target}_fuzzer\", \"result\": \"COMPLETED\"}]}]}" \
        > "$results/fuzz_$target.json"
    else
      { echo "${target}_fuzzer: FAILED; see $build/fuzz-$target.log"; tail -n 30 "$build/fuzz-$target.log"; } \
        > "$build/fuzz-$target.verdict"
    fi
    rm -rf "$corpus"
  }
  # Each fuzzer is one process on one core: two at a time fill CI's two cores for the same time each.
  fuzz_targets=(entry signature manifest metadata)
  rm -f "$build"/fuzz-*.verdict
  for ((i = 0; i < ${#fuzz_targets[@]}; i += 2)); do
    for target in "${fuzz_targets[@]:i:2}"; do fuzz_one "$target" & done
    wait
  done
  for target in "${fuzz_targets[@]}"; do
    cat "$build/fuzz-$target.verdict"
    expected+=("fuzz_$target")
  done
else
  echo "fuzz build failed; see $build/fuzz-*.log"
  expected+=(fuzz_entry fuzz_signature fuzz_manifest fuzz_metadata)
fi
fi

stage "pytest"
TRITON_JIT_BUILD_DIR="$build" "$python" -m pytest -q -rs "$root/tests/python" --junitxml="$results/pytest.xml" 2>&1 | tail -n 25

# The pinned Triton ran above; the Triton-facing tests again with the oldest and the newest
# supported release (scripts/test_matrix.sh runs every release).
matrix_versions=(${TRITON_JIT_MATRIX_VERSIONS:-3.3.1 3.9.0})
stage "Triton matrix (${matrix_versions[*]})"
TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_MATRIX_RESULTS="$results" bash "$root/scripts/test_matrix.sh" \
  "${matrix_versions[@]}" 2>&1 | tail -n $((${#matrix_versions[@]} + 3))
for v in "${matrix_versions[@]}"; do expected+=("matrix_${v}_pytest" "matrix_${v}_cpp"); done

# The pinned torch ran above; the adapter, the operators and the Python entry built again against
# the oldest and the newest supported torch, and their CPU suites run there
# (scripts/test_torch_matrix.sh runs every release). Each row's environment is removed after it.
torch_versions=(${TRITON_JIT_TORCH_MATRIX_VERSIONS:-2.9.1 2.15.0})
stage "torch matrix (${torch_versions[*]})"
TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_MATRIX_RESULTS="$results" TRITON_JIT_MATRIX_PRUNE=${TRITON_JIT_MATRIX_PRUNE:-1} \
  bash "$root/scripts/test_torch_matrix.sh" "${torch_versions[@]}" 2>&1 | tail -n $((${#torch_versions[@]} + 3))
for v in "${torch_versions[@]}"; do expected+=("torch_matrix_${v}_pytest"); done
stage ""
echo "-- total: $((SECONDS - started)) s"
"$python" "$root/scripts/summarize_tests.py" "$results" "${expected[@]}" pytest
