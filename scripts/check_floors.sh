#!/usr/bin/env bash
# The rooms of src/ are floors (docs/architecture.md): a file may include its own room and the
# rooms below it, and a room with a door (decorators/) only through its door header. Prints every
# include that breaks either rule, as file:line, and exits 1 if there is one; prints nothing when
# the house is in order.
#   bash scripts/check_floors.sh
set -uo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
floors=(common encoding cache compiler backend variants decorators runtime torch python_entry)
declare -A floor
for i in "${!floors[@]}"; do floor[${floors[$i]}]=$i; done
# cache, compiler and backend share a floor: none includes another.
floor[compiler]=${floor[cache]}
floor[backend]=${floor[cache]}

status=0
while IFS= read -r file; do
  room=${file#src/}
  room=${room%%/*}
  [ -n "${floor[$room]:-}" ] || { echo "$file: room $room has no floor in scripts/check_floors.sh"; status=1; continue; }
  while IFS=: read -r line target; do
    to=${target%%/*}
    [ -n "${floor[$to]:-}" ] || continue  # a public header (triton_jit/...) or a generated one
    if [ "$to" != "$room" ] && [ "${floor[$to]}" -ge "${floor[$room]}" ]; then
      echo "$file:$line: $room -> $to points up or across"
      status=1
    fi
  done < <(grep -nE '^#include "[a-z_]+/' "$root/$file" | sed -E 's/^([0-9]+):#include "([^"]+)".*/\1:\2/')
done < <(git -C "$root" ls-files 'src/*.h' 'src/*.cpp' 'src/*.cc')
# The decorators room has one door: above it, only decorators/decorated_calls.h is included.
while IFS= read -r hit; do
  echo "$hit: past the decorators' door (decorators/decorated_calls.h)"
  status=1
done < <(cd "$root" && git ls-files 'src/*.h' 'src/*.cpp' | grep -v '^src/decorators/' |
  xargs grep -nE '^#include "decorators/' | grep -v '"decorators/decorated_calls.h"' | cut -d: -f1,2)
exit $status
