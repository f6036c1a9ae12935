#!/usr/bin/env bash
# The torch-facing parts against every supported torch release: for each, a virtual environment
# with pip's torch (and the Triton it pins), kept outside the clone (scripts/lib/caches.sh), a build of the libtorch adapter, the
# operators and the Python entry against it, then the CPU suites that load them (pytest: the
# operators' registration, Meta kernels and errors, the Python entry, attention) and the loader's
# test, which also loads the main build (made against requirements.txt's torch) under this torch:
# refused, naming both versions, unless they match. Prints a version x result table; exits
# non-zero when a row is not green. The operators are built per torch minor version: the table is
# what each build passes.
# TRITON_JIT_MATRIX_RESULTS=<dir> also writes each row's JUnit XML there (scripts/test.sh);
# TRITON_JIT_MATRIX_PRUNE=1 removes each row's build after it; TRITON_JIT_PREPARE_ONLY=1 makes the
# environments and stops (scripts/test.sh fetches them while it compiles).
#   bash scripts/test_torch_matrix.sh [version ...]     (default: every supported release)
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
matrix=${TRITON_JIT_MATRIX_DIR:-$build/matrix}
mkdir -p "$matrix"
versions=("$@")
[ ${#versions[@]} -eq 0 ] && versions=(2.9.1 2.10.0 2.11.0 2.12.1 2.13.0 2.14.1 2.15.0)
if [ "${TRITON_JIT_PREPARE_ONLY:-0}" = 1 ]; then
  python=$(bash "$root/scripts/setup_env.sh" | tail -n 1) || exit 1
else
  python=$(bash "$root/scripts/build.sh" | tail -n 1) || { echo "build failed"; exit 1; }
fi
source "$root/scripts/lib/caches.sh"
base=$("$python" -c "import sys; print(getattr(sys, '_base_executable', sys.executable))")
pins=$(grep -E '^(pytest|pytest-xdist|numpy|pybind11)==' "$root/requirements.txt" | cut -d' ' -f1)
suites=(tests/python/test_torch_versions.py tests/python/test_torch_ops.py tests/python/test_ops.py
        tests/python/test_python_entry.py tests/python/test_attention.py)

# Line tables only when scripts/test.sh asks (scripts/build.sh says why).
line_tables=()
[ "${TRITON_JIT_LINE_TABLES:-0}" = 1 ] && line_tables=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")

rows=()
status=0
for version in "${versions[@]}"; do
  started=$SECONDS
  fill_torch_venv() {
    "$base" -m venv --without-pip "$1" && "$python" -m pip --python "$1/bin/python" install -q "torch==$version" $pins
  }
  env_dir=$(cached_venv "torch-$version" "$version $pins $("$base" -VV)" fill_torch_venv) ||
    { rows+=("| $version | environment could not be made | | | | RED |"); status=1; continue; }
  env_python="$env_dir/bin/python"
  [ "${TRITON_JIT_PREPARE_ONLY:-0}" = 1 ] && continue
  about=$("$env_python" -c "import torch, triton; print(f'{torch.__version__} | {triton.__version__}')")
  log="$matrix/torch-$version.log"
  # Beside the main build, at the same depth, its units in batches (unity build): torch's headers
  # are parsed once a batch, and the batches that include no torch header are the same for every
  # row, so the second row takes them from the compiler cache.
  row_build="$build-torch-$version"
  if ! { cmake -S "$root" -B "$row_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRITON_JIT_PYTHON="$env_python" \
           -DTRITON_JIT_BUILD_BENCHMARKS=OFF -DCMAKE_UNITY_BUILD=ON "${line_tables[@]}" ${TRITON_JIT_CMAKE_ARGS:-} &&
         cmake --build "$row_build" --target triton_jit_ops triton_jit_launch; } > "$log" 2>&1; then
    rows+=("| $version | $about | build failed (see $log) | | RED |")
    status=1
    continue
  fi
  results=${TRITON_JIT_MATRIX_RESULTS:-}
  pytest_line=$(cd "$root" && TRITON_JIT_PYTHON="$env_python" TRITON_JIT_BUILD_DIR="$row_build" \
    TRITON_JIT_OTHER_TORCH_BUILD="$build" "$env_python" -m pytest -q -rs -p no:cacheprovider -n 2 \
    ${results:+--junitxml=$results/torch_matrix_${version}_pytest.xml} "${suites[@]}" 2>&1 | tee -a "$log" | tail -n 1)
  ok=green
  if ! grep -qE '^[0-9]+ passed' <<< "$pytest_line" || grep -qE 'failed|error' <<< "$pytest_line"; then
    ok=RED
    status=1
  fi
  rows+=("| $version | $about | built | $pytest_line ($((SECONDS - started)) s) | $ok |")
  [ "${TRITON_JIT_MATRIX_PRUNE:-0}" = 1 ] && rm -rf "$row_build"
done
echo "| torch | torch found | Triton it pins | adapter, operators, Python entry | CPU suites (pytest) | |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
echo "(logs: $matrix/torch-<version>.log)"
exit $status
