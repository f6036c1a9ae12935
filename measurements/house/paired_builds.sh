#!/usr/bin/env bash
# The launch hit path of two builds side by side on a GPU: the tree this script is in and a base
# tree (another commit's sources, e.g. from `git archive`). Both are built the same way, then
# their launch_benchmark runs alternate, so that the machine's drift falls on both alike; each
# run's paired figures (ours - raw in one process, Note [Paired timing]) are kept, and the medians
# over the runs are printed side by side.
#   OUT=dir bash measurements/house/paired_builds.sh <base source dir> [runs]
set -uo pipefail
base=$(cd "${1:?usage: paired_builds.sh <base source dir> [runs]}" && pwd)
runs=${2:-5}
head=$(cd "$(dirname "$0")/../.." && pwd)
out=${OUT:-$head/gpu-logs}/house
mkdir -p "$out"
export CMAKE_BUILD_TYPE=Release TRITON_JIT_NO_APT=1 TRITON_JIT_SKIP_SANITIZERS=1
export TRITON_JIT_PYTHON=${TRITON_JIT_PYTHON:-$(command -v python3)}
if [ ! -f /usr/include/xxhash.h ] && [ -f "$head/.deps/xxhash/xxhash.h" ]; then
  export TRITON_JIT_CMAKE_ARGS="-DTRITON_JIT_XXHASH_INCLUDE_DIR=$head/.deps/xxhash ${TRITON_JIT_CMAKE_ARGS:-}"
fi
# Only the benchmark and what it links are built; a head build already made (HEAD_BUILD, e.g. the
# GPU check's own) is reused, since it was configured the same way.
declare -A build_of=([base]=$base/build-house [head]=${HEAD_BUILD:-$head/build-house})
for tree in base head; do
  src=${!tree}
  [ -x "${build_of[$tree]}/bin/launch_benchmark" ] && [ "$tree" = head ] && continue
  TRITON_JIT_TARGETS=launch_benchmark TRITON_JIT_BUILD_DIR=${build_of[$tree]} bash "$src/scripts/build.sh" \
    > "$out/build-$tree.txt" 2>&1 ||
    { echo "paired_builds: the $tree build failed"; tail -n 20 "$out/build-$tree.txt"; exit 1; }
done
for ((r = 1; r <= runs; ++r)); do
  for tree in base head; do
    src=${!tree}
    TRITON_JIT_CACHE_DIR=$out/cache-$tree "${build_of[$tree]}/bin/launch_benchmark" --benchmark_filter='^$' \
      > "$out/run-$tree-$r.txt" 2>&1 || echo "paired_builds: $tree run $r exited $?"
  done
done
# The figures of each run: plain hit over raw (4 and 16 arguments), and decorated over undecorated.
figures() {
  awk '/ours - raw, add:/ {a = $6} /ours - raw, 16 args:/ {b = $7} /decorated - undecorated:/ {c = $5}
       END {gsub(/\+/, "", a); gsub(/\+/, "", b); gsub(/\+/, "", c); print a, b, c}' "$1"
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
{
  echo "host ns per launch, median of $runs alternating runs (each run: its own paired median over 200 rounds)"
  printf '%-40s %10s %10s\n' "" base head
  for column in 1 2 3; do
    name=$(sed -n "${column}p" <<< $'plain hit - raw, 4 arguments\nplain hit - raw, 16 arguments\ndecorated - undecorated hit')
    b=$(for f in "$out"/run-base-*.txt; do figures "$f"; done | awk -v c=$column '{print $c}' | median)
    h=$(for f in "$out"/run-head-*.txt; do figures "$f"; done | awk -v c=$column '{print $c}' | median)
    printf '%-40s %10s %10s\n' "$name" "$b" "$h"
  done
} | tee "$out/paired.txt"
