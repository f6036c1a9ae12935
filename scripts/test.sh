#!/usr/bin/env bash
# Builds and runs every check, in stages:
#   build          the main build (scripts/build.sh: the machine set up, environments and ccache)
#   format         every C++ file as the repository's .clang-format writes it
#   cpp            the C++ suites (CTest label cpu; the gpu ones report their tests as skipped)
#   hip            the HIP backend: the core built for it, its suites against a stand-in runtime
#   asan, tsan     the core and its CPU suites built with AddressSanitizer+UndefinedBehaviorSanitizer
#                  (every cpu suite) and ThreadSanitizer (the suites that start threads: label threads)
#   fuzz           every parser's fuzz target: its seed corpus replayed, then a short search
#   packaging      .deb and .rpm from one staged build, lintian, a second build for reproducibility,
#                  and the packages installed and used (scripts/package.sh, test_packages.py)
#   wheel          the wheel built by pip and used from a fresh environment (test_wheel.py)
#   pytest         the Python suites, on two workers
#   triton-matrix  the Triton-facing tests against the oldest and newest supported Triton
#   torch-matrix   the torch-facing parts built and tested against the oldest and newest torch
# GPU tests run where a GPU is present and are reported as skipped otherwise. Prints a table of the
# stages' times against the budget, and ends with one line: 'N passed, N failed, N skipped'.
#   bash scripts/test.sh                   every stage
#   bash scripts/test.sh --only asan ...   these stages alone (with the build they need)
# A stage that fails prints the end of its log and the command that runs it alone.
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
fuzz_seconds=${TRITON_JIT_FUZZ_SECONDS:-20}
all_stages=(build format cpp hip asan tsan fuzz packaging wheel pytest triton-matrix torch-matrix)
# What one run may take on CI's machine (2 cores): with empty caches (a new machine), and with the
# caches an earlier run left (scripts/lib/caches.sh).
budget_cold=2700
budget_warm=1500

stages=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only) shift; while [ $# -gt 0 ] && [[ "$1" != --* ]]; do stages+=("$1"); shift; done ;;
    *) echo "test.sh: unknown argument '$1' (expected --only <stage> ...; stages: ${all_stages[*]})" >&2; exit 2 ;;
  esac
done
[ ${#stages[@]} -gt 0 ] || stages=("${all_stages[@]}")
for s in "${stages[@]}"; do
  [[ " ${all_stages[*]} " == *" $s "* ]] || { echo "test.sh: no stage '$s' (stages: ${all_stages[*]})" >&2; exit 2; }
done
only=$([ ${#stages[@]} -lt ${#all_stages[@]} ] && echo 1 || echo 0)

# Every build here but the packages' carries line tables only (scripts/build.sh): what the tests'
# reports need, compiled in a fifth less time than full debug information.
export TRITON_JIT_LINE_TABLES=${TRITON_JIT_LINE_TABLES:-1}
line_tables=()
[ "$TRITON_JIT_LINE_TABLES" = 1 ] && line_tables=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")

started=$SECONDS
logs="$build/logs"
results="$build/test-results"
mkdir -p "$build"
rm -rf "$logs" "$results" && mkdir -p "$logs" "$results"
expected=()   # result names that must exist (a suite that crashed writes none)
table=()
failed_stages=()

# Were the caches warm? Read before anything fills them.
source "$root/scripts/lib/caches.sh"
cache_state=cold
if [ -n "${CCACHE_DIR:-}" ] && [ -n "$(ls -A "$CCACHE_DIR" 2>/dev/null)" ] &&
   [ -n "$(ls -A "$TRITON_JIT_CI_CACHE/venvs" 2>/dev/null)" ]; then
  cache_state=warm
fi
command -v ccache >/dev/null && ccache -z >/dev/null 2>&1

# run_stage <name> <function>: the function's output goes to logs/<name>.log; its exit status
# decides the stage's result.
# compiles_so_far: "<hits> <compiles>" through ccache since the run began (none without ccache).
compiles_so_far() {
  command -v ccache >/dev/null || { echo "0 0"; return; }
  ccache --print-stats 2>/dev/null |
    awk '$1 ~ /^(direct|preprocessed)_cache_hit$/ {h += $2} $1 == "cache_miss" {m += $2} END {print h + 0, h + m}'
}

run_stage() {
  local name=$1 fn=$2 t0=$SECONDS status before after
  echo "== $name"
  before=$(compiles_so_far)
  "$fn" > "$logs/$name.log" 2>&1
  status=$?
  after=$(compiles_so_far)
  # Which stage compiled what: a stage that misses ccache on a warm machine is the place to look.
  local compiles
  compiles=$(echo "$before $after" | awk '$4 > $2 {printf "%d of %d from ccache", $3 - $1, $4 - $2}')
  # The lines a reader wants without opening the log: the stage's own summary lines.
  grep -E '^(\| |[0-9]+ passed|[0-9]+/[0-9]+ Test|.*tests passed|.*_fuzzer: |identical: |DIFFERENT: |lintian: |[0-9]+ files formatted|=+ .*(passed|failed|error))' \
    "$logs/$name.log" | tail -n 40
  local seconds=$((SECONDS - t0)) verdict=ok
  if [ $status -ne 0 ]; then
    verdict=FAILED
    failed_stages+=("$name")
    echo "-- $name FAILED after $seconds s; the end of $logs/$name.log:"
    tail -n 40 "$logs/$name.log" | sed 's/^/   | /'
    echo "-- rerun it alone: bash scripts/test.sh --only $name"
  else
    echo "-- $name: $seconds s${compiles:+ ($compiles)}"
  fi
  table+=("| $name | $seconds | $verdict${compiles:+, $compiles} |")
}

# ctest_label <build dir> <label> <result prefix> [env...]: the label's suites, two at a time,
# each writing its GoogleTest JSON to results/<prefix>/.
ctest_label() {
  local dir=$1 label=$2 prefix=$3
  shift 3
  mkdir -p "$results/$prefix"
  local names
  names=$(cd "$dir" && ctest -N -L "^($label)\$" | sed -n 's/^ *Test *#[0-9]*: *//p')
  for n in $names; do expected+=("$prefix/$n"); done
  # To files, not a pipe: a forked child that outlives its test must not hold the output open.
  (cd "$dir" && env "$@" GTEST_OUTPUT="json:$results/$prefix/" ctest -L "^($label)\$" -j2 --timeout 1800 \
     --output-on-failure)
}

python=
stage_build() {
  bash "$root/scripts/setup_env.sh" > /dev/null || return 1
  # The matrices' environments download while the build compiles.
  if want triton-matrix; then
    TRITON_JIT_PREPARE_ONLY=1 bash "$root/scripts/test_matrix.sh" "${matrix_versions[@]}" > "$logs/prepare-triton-envs.log" 2>&1 &
  fi
  if want torch-matrix; then
    TRITON_JIT_PREPARE_ONLY=1 bash "$root/scripts/test_torch_matrix.sh" "${torch_versions[@]}" > "$logs/prepare-torch-envs.log" 2>&1 &
  fi
  python=$(bash "$root/scripts/build.sh" | tail -n 1) && echo "python: $python"
}

stage_format() {
  local files
  files=$(git -C "$root" ls-files '*.cpp' '*.h' | grep -v '^measurements/' | sed "s|^|$root/|")
  # shellcheck disable=SC2086
  clang-format --dry-run -Werror $files || return 1
  echo "$(wc -w <<< "$files") files formatted as .clang-format says"
  # Every include arrow of src/ points down (docs/architecture.md, "The core, folder by folder").
  bash "$root/scripts/check_floors.sh" || return 1
  echo "every include of src/ points to its own room or one below"
  echo '{"testsuites": [{"testsuite": [{"name": "clang-format", "result": "COMPLETED"}]}]}' > "$results/format.json"
}

stage_cpp() { ctest_label "$build" "cpu|gpu" cpp; }

# The HIP backend policy (TRITON_JIT_BACKEND=hip): the core built for it, its tests against a
# stand-in runtime with real Triton compiles for gfx942 and gfx90a. No AMD GPU is needed.
stage_hip() {
  cmake -S "$root" -B "$build-hip" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITON_JIT_PYTHON="$python" \
    "${line_tables[@]}" -DTRITON_JIT_BACKEND=hip &&
    cmake --build "$build-hip" --target test_hip_backend test_argument_encoding &&
    ctest_label "$build-hip" hip hip
}

# sanitized <dir suffix> <label> <flags> <env...>: the core (no torch, no GPU needed) and the
# label's suites in a sanitizer build. -O1 and line tables only: what the sanitizers'
# documentation advises, and 2.3x faster to compile than -O2 -g; reports still name file and line.
# Its units compile in batches (unity build: the core in 52 s instead of 111 s on two cores); the
# main build compiles every file alone, which checks that each includes what it uses.
sanitized() {
  local suffix=$1 label=$2 flags=$3
  shift 3
  local dir="$build-$suffix"
  local options=(-G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG"
                 -DTRITON_JIT_PYTHON="$python" -DTRITON_JIT_BUILD_TORCH=OFF -DTRITON_JIT_BUILD_BENCHMARKS=OFF
                 "-DCMAKE_CXX_FLAGS=$flags" "-DCMAKE_EXE_LINKER_FLAGS=$flags" "-DCMAKE_SHARED_LINKER_FLAGS=$flags"
                 "-DCMAKE_MODULE_LINKER_FLAGS=$flags" -DCMAKE_UNITY_BUILD=ON)
  cmake -S "$root" -B "$dir" "${options[@]}" && cmake --build "$dir" && ctest_label "$dir" "$label" "$suffix" "$@"
}
# Leak checking is off: the embedded interpreter and Triton keep their allocations until exit.
stage_asan() {
  sanitized asan cpu "-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer" \
    ASAN_OPTIONS=detect_leaks=0:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
}
stage_tsan() { sanitized tsan threads "-fsanitize=thread" TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"; }

# Each fuzzer is one process on one core: two at a time fill CI's two cores. Starting from its
# seed corpus, libFuzzer first runs every seed (the regressions), then searches.
fuzz_targets=(entry signature raw_signature manifest metadata model_config)
stage_fuzz() {
  cmake -S "$root/fuzz" -B "$build-fuzz" -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_UNITY_BUILD=ON && cmake --build "$build-fuzz" || return 1
  fuzz_one() {
    local target=$1 corpus
    corpus=$(mktemp -d)  # the committed seeds stay as they are; what the run finds stays here
    cp "$root/fuzz/corpus/$target"/* "$corpus"/
    if "$build-fuzz/${target}_fuzzer" "$corpus" -max_total_time="$fuzz_seconds" -print_final_stats=1 \
         > "$logs/fuzz-$target.log" 2>&1; then
      echo "${target}_fuzzer: clean, $(ls "$root/fuzz/corpus/$target" | wc -l) seeds replayed," \
           "$(grep -oE 'stat::number_of_executed_units: *[0-9]+' "$logs/fuzz-$target.log" | grep -oE '[0-9]+$') runs"
      echo "{\"testsuites\": [{\"testsuite\": [{\"name\": \"${target}_fuzzer\", \"result\": \"COMPLETED\"}]}]}" \
        > "$results/fuzz/$target.json"
    else
      echo "${target}_fuzzer: FAILED; see $logs/fuzz-$target.log"
      tail -n 30 "$logs/fuzz-$target.log"
    fi
    rm -rf "$corpus"
  }
  mkdir -p "$results/fuzz"
  local i
  for ((i = 0; i < ${#fuzz_targets[@]}; i += 2)); do
    for target in "${fuzz_targets[@]:i:2}"; do fuzz_one "$target" > "$logs/fuzz-$target.verdict" & done
    wait
  done
  cat "$logs"/fuzz-*.verdict
  ! grep -q FAILED "$logs"/fuzz-*.verdict
}

pytest_args=(-p no:cacheprovider -q -rs)
stage_packaging() {
  TRITON_JIT_PYTHON="$python" TRITON_JIT_DIST_DIR="$build/dist" TRITON_JIT_REPRODUCIBLE=1 \
    bash "$root/scripts/package.sh" || return 1
  TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_PACKAGES_DIR="$build/dist" "$python" -m pytest "${pytest_args[@]}" \
    "$root/tests/python/test_packages.py" --junitxml="$results/packaging.xml"
}

# From the source the packages were built from, in their build directory, with their flags and
# their ccache base directory (the source): its compiles are theirs.
stage_wheel() {
  local source=$root build_dir=
  if [ -f "$build/dist/source-dir" ] && [ -f "$build/dist/build-dir" ]; then
    source=$(cat "$build/dist/source-dir")
    build_dir=$(cat "$build/dist/build-dir")
  fi
  (
    export CCACHE_BASEDIR=$source
    TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_WHEEL_SOURCE="$source" TRITON_JIT_WHEEL_BUILD_DIR="$build_dir" \
      "$python" -m pytest "${pytest_args[@]}" "$root/tests/python/test_wheel.py" --junitxml="$results/wheel.xml"
  )
}

# Two workers; the tests that run CMake builds share one (xdist_group "build", see conftest.py),
# so two builds never compete for CI's two cores.
stage_pytest() {
  # Temporary directories inside the build: the consumer builds' compiles then hit ccache from
  # another clone (paths under the clone are hashed relative to it).
  TRITON_JIT_BUILD_DIR="$build" "$python" -m pytest "${pytest_args[@]}" -n 2 --dist loadgroup "$root/tests/python" \
    --basetemp="$build/pytest-tmp" \
    --ignore="$root/tests/python/test_packages.py" --ignore="$root/tests/python/test_wheel.py" \
    --junitxml="$results/pytest.xml"
}

# The pinned Triton ran above; the Triton-facing tests again with the oldest and the newest
# supported release (scripts/test_matrix.sh runs every release).
matrix_versions=(${TRITON_JIT_MATRIX_VERSIONS:-3.3.1 3.9.0})
stage_triton_matrix() {
  TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_MATRIX_RESULTS="$results" bash "$root/scripts/test_matrix.sh" \
    "${matrix_versions[@]}"
}

# The pinned torch ran above; the adapter, the operators and the Python entry built again against
# the oldest and the newest supported torch, and their CPU suites run there
# (scripts/test_torch_matrix.sh runs every release).
torch_versions=(${TRITON_JIT_TORCH_MATRIX_VERSIONS:-2.9.1 2.15.0})
stage_torch_matrix() {
  TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_MATRIX_RESULTS="$results" TRITON_JIT_MATRIX_PRUNE=${TRITON_JIT_MATRIX_PRUNE:-1} \
    bash "$root/scripts/test_torch_matrix.sh" "${torch_versions[@]}"
}

want() { [[ " ${stages[*]} " == *" $1 "* ]]; }
# The C++ suites, pytest and the matrices need the main build; with --only it is brought up to
# date (quick when nothing changed) without counting as a stage. The other stages need only the
# machine set up.
if want build; then
  run_stage build stage_build
elif want cpp || want pytest || want triton-matrix || want torch-matrix; then
  stage_build > "$logs/build.log" 2>&1 || { echo "the main build failed: $logs/build.log"; tail -n 40 "$logs/build.log"; }
else
  python=$(bash "$root/scripts/setup_env.sh" 2> "$logs/setup.log" | tail -n 1) || { echo "setup failed: $logs/setup.log"; tail -n 40 "$logs/setup.log"; }
fi
if [ -z "$python" ]; then
  echo "test.sh: no Python environment; every stage needs one"
  echo "0 passed, 1 failed, 0 skipped"
  exit 1
fi
for s in format cpp hip asan tsan fuzz packaging wheel pytest triton-matrix torch-matrix; do
  want "$s" && run_stage "$s" "stage_${s//-/_}"
done
want triton-matrix && for v in "${matrix_versions[@]}"; do expected+=("matrix_${v}_pytest" "matrix_${v}_cpp"); done
want torch-matrix && for v in "${torch_versions[@]}"; do expected+=("torch_matrix_${v}_pytest"); done
want packaging && expected+=(packaging)
want wheel && expected+=(wheel)
want pytest && expected+=(pytest)
want fuzz && for t in "${fuzz_targets[@]}"; do expected+=("fuzz/$t"); done
want format && expected+=(format)
wait

total=$((SECONDS - started))
echo
echo "| stage | s | result |"
echo "|---|---|---|"
printf '%s\n' "${table[@]}"
echo "| total | $total | |"
hits=$(ccache -s 2>/dev/null | sed -n 's/^ *Hits: *\([0-9]*\) \/ *\([0-9]*\).*/\1 of \2 compiles from ccache/p' | head -n 1)
if [ "$only" = 0 ]; then
  budget=$([ "$cache_state" = warm ] && echo $budget_warm || echo $budget_cold)
  echo "-- budget: $total s of $budget s ($((100 * total / budget))%) with $cache_state caches${hits:+; $hits}" \
       "(budgets: $budget_cold s on a new machine, $budget_warm s with warm caches)"
fi
[ ${#failed_stages[@]} -eq 0 ] || echo "-- failed stages: ${failed_stages[*]} (bash scripts/test.sh --only <stage> reruns one)"
"$python" "$root/scripts/summarize_tests.py" "$results" "${expected[@]}"
status=$?
[ ${#failed_stages[@]} -eq 0 ] || status=1
exit $status
