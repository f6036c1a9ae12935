#!/usr/bin/env bash
# Sets up the machine (scripts/setup_env.sh) and builds everything into build/ (or $TRITON_JIT_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
python=$(bash "$root/scripts/setup_env.sh" | tail -n 1)
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=${CMAKE_BUILD_TYPE:-RelWithDebInfo} \
  -DTRITON_JIT_PYTHON="$python" >&2
cmake --build "$build" >&2
echo "$python"
