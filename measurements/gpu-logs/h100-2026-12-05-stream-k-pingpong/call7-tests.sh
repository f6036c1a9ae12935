#!/usr/bin/env bash
# Fresh build; the stream-K and ping-pong GEMM tests (short leash), then the whole-tile GEMM tests.
set -u
L=$OUT/l; mkdir -p $L
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name --format=csv,noheader > $L/machine.txt; date -u >> $L/machine.txt
python3 -c "import torch, triton; print(torch.__version__, triton.__version__)" >> $L/machine.txt
TRITON_JIT_BUILD_DIR=$PWD/build-gpu OUT=$L timeout 250 bash scripts/gpu_check.sh build > $L/build.txt 2>&1
echo "build exit $?"; tail -n 3 $L/build.txt
TRITON_JIT_BUILD_DIR=$PWD/build-gpu timeout 200 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_gluon.py \
  -k "stream_k or pingpong" -x > $L/new-gemm-tests.txt 2>&1
echo "new gemm tests exit $?"; tail -n 15 $L/new-gemm-tests.txt
TRITON_JIT_BUILD_DIR=$PWD/build-gpu timeout 100 python3 -m pytest -q -rs -p no:cacheprovider tests/python/test_gluon.py \
  -k "matches_torch and not stream_k and not pingpong" > $L/ws-gemm-tests.txt 2>&1
echo "whole-tile gemm tests exit $?"; tail -n 3 $L/ws-gemm-tests.txt
cat $L/machine.txt
cd $OUT && tar czf logs.tgz l && rm -rf l
