#!/usr/bin/env bash
# The Triton-facing tests against every supported Triton release: one small virtual environment
# per release, kept outside the clone (scripts/lib/caches.sh; Triton, pytest and numpy; torch and
# the rest are shared from the project's environment through a .pth file, not installed again), then for each the parity,
# compile-script, tensor-descriptor, prune-argument and argument-kind tests (pytest), the persistent-cache tests and the C++ compile tests
# (test_compile_bridge, every target), run with that environment's Python as the one that
# compiles. Prints a version x result table; exits non-zero when a row is not green.
# TRITON_JIT_MATRIX_RESULTS=<dir> also writes each row's results there (JUnit XML, GoogleTest
# JSON), as scripts/test.sh collects them.
# TRITON_JIT_PREPARE_ONLY=1 makes the environments and stops (scripts/test.sh fetches them while
# it compiles).
#   bash scripts/test_matrix.sh [version ...]     (default: every supported release)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
matrix=${TRITON_JIT_MATRIX_DIR:-$build/matrix}
mkdir -p "$matrix"
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(3.3.1 3.4.0 3.5.1 3.6.0 3.7.1 3.8.0 3.9.0)
if [ "${TRITON_JIT_PREPARE_ONLY:-0}" = 1 ]; then
  python=$(bash "$root/scripts/setup_env.sh" | tail -n 1) || exit 1
else
  python=$(bash "$root/scripts/build.sh" | tail -n 1) || { echo "build failed"; exit 1; }
fi
source "$root/scripts/lib/caches.sh"
base=$("$python" -c "import sys; print(getattr(sys, '_base_executable', sys.executable))")
shared=$("$python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
pins=$(grep -E '^(pytest|numpy)==' "$root/requirements.txt" | cut -d' ' -f1)

rows=()
status=0
for version in "${versions[@]}"; do
  fill_triton_venv() {
    "$base" -m venv --without-pip "$1" &&
      "$python" -m pip --python "$1/bin/python" install -q "triton==$version" $pins &&
      echo "$shared" > "$("$1/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")/triton_jit_shared.pth"
  }
  # The shared site-packages is part of the key: the .pth file names it.
  env_dir=$(cached_venv "triton-$version" "$version $pins $shared $("$base" -VV)" fill_triton_venv) ||
    { rows+=("| $version | environment could not be made | | |"); status=1; continue; }
  [ "${TRITON_JIT_PREPARE_ONLY:-0}" = 1 ] && continue
  env_python="$env_dir/bin/python"
  log="$matrix/triton-$version.log"
  results=${TRITON_JIT_MATRIX_RESULTS:-}
  pytest_line=$(cd "$root" && TRITON_JIT_PYTHON="$env_python" TRITON_JIT_BUILD_DIR="$build" "$env_python" -m pytest -q -rs -n 2 \
    -p no:cacheprovider ${results:+--junitxml=$results/matrix_${version}_pytest.xml} tests/python/test_parity.py tests/python/test_compile_script.py tests/python/test_tensor_descriptors.py tests/python/test_prune_arguments.py tests/python/test_argument_kinds.py \
    tests/python/test_persistent_cache.py 2>&1 | tee "$log" | tail -n 1)
  cache=$(mktemp -d)
  cpp_line=$(TRITON_JIT_PYTHON="$env_python" TRITON_JIT_CACHE_DIR="$cache" "$build/bin/test_compile_bridge" \
    --gtest_filter=-Fork.* ${results:+--gtest_output=json:$results/matrix_${version}_cpp.json} 2>&1 | tee -a "$log" | grep -E '^\[  (PASSED|FAILED)  \] [0-9]+ tests?' | tr '\n' ' ')
  rm -rf "$cache"
  ok=green
  if ! grep -qE '^[0-9]+ passed' <<< "$pytest_line" || grep -qE 'failed|error' <<< "$pytest_line" ||
     grep -q FAILED <<< "$cpp_line" || [ -z "$cpp_line" ]; then
    ok=RED
    status=1
  fi
  rows+=("| $version | $pytest_line | $cpp_line | $ok |")
done
echo "| Triton | parity, compile script, prune arguments, persistent cache (pytest) | C++ compile tests, 8 targets | |"
echo "|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "(logs: $matrix/triton-<version>.log)"
exit $status
