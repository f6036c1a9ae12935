#!/usr/bin/env bash
# Instructions and last-level misses per cache hit, under cachegrind on the stand-in driver: a
# deterministic figure for comparing two builds of the hit path on a machine without a GPU.
# Each kind is run at two round counts; the difference over the launches added is one hit,
# whatever the start-up costs. Usage: hit_instructions.sh <build dir> [evict KB]
set -euo pipefail
build=${1:?usage: hit_instructions.sh <build dir> [evict KB]}
evict=${2:-1024}
root=$(cd "$(dirname "$0")/../.." && pwd)
export TRITON_JIT_CUDA_DRIVER=$build/tests/fake_cuda/libcuda.so.1 FAKE_CUDA_EVICT_KB=$evict
export LD_LIBRARY_PATH=$build/tests/fake_cuda${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
probe=$build/bin/hit_probe
kernels=$root/benchmarks/bench_kernels.py
"$probe" "$kernels" 2 >/dev/null  # compiles and persists the variants outside the measurement
totals() {  # rounds kind -> "Ir D1-misses LL-misses"
  local out
  out=$(mktemp)
  valgrind --tool=cachegrind --cache-sim=yes --cachegrind-out-file="$out" "$probe" "$kernels" "$1" "$2" >/dev/null 2>&1
  awk '/^summary:/ {print $2, $6 + $9, $7 + $10}' "$out"
  rm -f "$out"
}
# Per hit, less the raw driver call's figures (the stand-in's eviction dominates both).
printf '%-12s %14s %12s %12s   (per hit over a raw cuLaunchKernelEx; evicting %s KB per launch)\n' \
  kind instructions "D1 misses" "LL misses" "$evict"
per_hit() {  # kind -> "Ir D1 LL" per launch
  local i1 d1 l1 i2 d2 l2
  read -r i1 d1 l1 < <(totals 2 "$1")
  read -r i2 d2 l2 < <(totals 6 "$1")
  awk -v i1="$i1" -v i2="$i2" -v d1="$d1" -v d2="$d2" -v l1="$l1" -v l2="$l2" \
    'BEGIN { n = 4 * 256; printf "%.2f %.3f %.3f\n", (i2 - i1) / n, (d2 - d1) / n, (l2 - l1) / n }'
}
read -r ri rd rl < <(per_hit raw)
for kind in plain many decorated undecorated; do
  read -r i d l < <(per_hit "$kind")
  awk -v k="$kind" -v i="$i" -v d="$d" -v l="$l" -v ri="$ri" -v rd="$rd" -v rl="$rl" \
    'BEGIN { printf "%-12s %14.1f %12.2f %12.2f\n", k, i - ri, d - rd, l - rl }'
done
