#!/usr/bin/env bash
# Sets up the machine (scripts/setup_env.sh) and builds everything into build/ (or $TRITON_JIT_BUILD_DIR),
# through ccache when it is installed (scripts/lib/caches.sh).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
python=$(bash "$root/scripts/setup_env.sh" | tail -n 1)
source "$root/scripts/lib/caches.sh"  # ccache, when installed
# TRITON_JIT_CMAKE_ARGS: extra configure arguments (a machine without a package for xxHash names
# its header directory with -DTRITON_JIT_XXHASH_INCLUDE_DIR=...); TRITON_JIT_TARGETS: build only these.
# TRITON_JIT_LINE_TABLES=1 (scripts/test.sh sets it): debug information of line tables only (-g1).
# Backtraces and sanitizer reports still name file and line, and a unit compiles in a fifth less
# time than with -g (a core unit: 7.8 s against 10.0 s).
line_tables=()
[ "${TRITON_JIT_LINE_TABLES:-0}" = 1 ] && line_tables=("-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} \
  -DTRITON_JIT_PYTHON="$python" "${line_tables[@]}" ${TRITON_JIT_CMAKE_ARGS:-} >&2
cmake --build "$build" ${TRITON_JIT_TARGETS:+--target $TRITON_JIT_TARGETS} >&2
echo "$python"
