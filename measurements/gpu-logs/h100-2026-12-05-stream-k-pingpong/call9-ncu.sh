#!/usr/bin/env bash
# Nsight Compute: the whole-tile, stream-K and ping-pong GEMMs side by side at two shapes.
set -u
L=$OUT/l; mkdir -p $L
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name --format=csv,noheader > $L/machine.txt
run() {  # run <name> <case>
  timeout 150 ncu --kernel-name regex:matmul --launch-skip 1 --launch-count 1 \
    --section SpeedOfLight --section WarpStateStats --section LaunchStats --section Occupancy \
    python3 measurements/gluon/profile_shapes.py "$2" > $L/ncu-$1.txt 2>&1
  echo "== $1 ($2): exit $?"
  grep -E "^\s+(Duration|SM Busy|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|Registers Per Thread|Grid Size|Stack Size|Local Memory Spilling)" $L/ncu-$1.txt | head -12
}
run whole-qwen-down-512 gemm:512x3584x18944:128x128x64:4:4
run sk-qwen-down-512 gemm:512x3584x18944:128x128x64:4:4:stream-k
run whole-qkv-512 gemm:512x4608x3584:128x128x64:4:4
run sk-qkv-512 gemm:512x4608x3584:128x128x64:4:4:stream-k
run whole-o-2048 gemm:2048x4096x4096:128x128x64:4:4
run pp-o-2048 gemm:2048x4096x4096:128x128x64:5:4:ping-pong
cd $OUT && tar czf logs.tgz l && rm -rf l
