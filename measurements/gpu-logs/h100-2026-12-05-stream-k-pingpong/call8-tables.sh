#!/usr/bin/env bash
# On the build of call7: the three Gluon GEMM kernels against cuBLAS at the middle and large rows.
set -u
L=$OUT/l; mkdir -p $L
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name --format=csv,noheader > $L/machine.txt; date -u >> $L/machine.txt
export TRITON_JIT_BUILD_DIR=$PWD/build-gpu PYTHONPATH=$PWD/build-gpu/python
timeout 300 python3 benchmarks/gluon_gemm.py --tokens ${MIDDLE:-128,512} --kernels whole,stream-K \
  --out $L/middle > $L/middle-run.txt 2>&1
echo "middle exit $?"; grep -E "ours/cuBLAS|WRONG|Error" $L/middle-run.txt | tail -n 35
timeout 240 python3 benchmarks/gluon_gemm.py --quick --tokens ${LARGE:-2048} --kernels whole,ping-pong \
  --out $L/large > $L/large-run.txt 2>&1
echo "large exit $?"; grep -E "ours/cuBLAS|WRONG|Error" $L/large-run.txt | tail -n 12
cd $OUT && tar czf logs.tgz l && rm -rf l
