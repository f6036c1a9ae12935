#!/usr/bin/env bash
# Builds everything and runs triton_jit_demo: on a GPU it launches the example operators and
# checks them against PyTorch; without one it compiles them for cuda:90 and says launching was skipped.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh" > /dev/null
exec "$build/bin/triton_jit_demo"
