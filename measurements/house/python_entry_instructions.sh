#!/usr/bin/env bash
# Instructions per call of the Python entry's argument path (binding, conversion, encoding),
# under cachegrind, on a machine without a GPU: kernel.warmup(...) of an already compiled variant
# takes the same path as kernel[grid](...) up to the runtime. The difference between two loop
# lengths over the calls added is one call. Usage: python_entry_instructions.sh <build dir> <python>
set -euo pipefail
build=${1:?usage: python_entry_instructions.sh <build dir> <python>}
python=${2:?usage: python_entry_instructions.sh <build dir> <python>}
here=$(cd "$(dirname "$0")" && pwd)
export PYTHONPATH=$build/python:$here PYTHONHASHSEED=0
"$python" "$here/python_entry_loop.py" 2 >/dev/null  # compiles and persists the variant first
total() {
  local out
  out=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" "$python" "$here/python_entry_loop.py" "$1" \
    >/dev/null 2>&1
  awk '/^summary:/ {print $2}' "$out"
  rm -f "$out"
}
a=$(total 200)
b=$(total 1200)
awk -v a="$a" -v b="$b" 'BEGIN { printf "instructions per kernel.warmup(...) call: %.1f\n", (b - a) / 1000 }'
