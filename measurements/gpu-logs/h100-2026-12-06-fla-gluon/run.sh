#!/usr/bin/env bash
# One call: targets build; fla's Gluon backends (tuple arguments to autotuned Gluon kernels) on
# Triton's launch and with install(), results compared; the same under compute-sanitizer; the
# decorated C++ suite and the Gluon pytest file.
set -u
L=$OUT/l; mkdir -p $L
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L/machine.txt; date -u >> $L/machine.txt
python3 -c "import torch, triton; print('torch', torch.__version__, 'triton', triton.__version__)" >> $L/machine.txt
cat $L/machine.txt
TRITON_JIT_TARGETS="triton_jit_launch triton_jit_python triton_jit_ops test_decorated fake_cuda" TRITON_JIT_BUILD_DIR=$PWD/build-gpu OUT=$L timeout 150 bash scripts/gpu_check.sh build > $L/build.txt 2>&1
echo "build exit $?"; tail -n 1 $L/build.txt
site=/tmp/fla-site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $site .whl/*.whl > $L/pip.txt 2>&1
echo "pip exit $?"
export TRITON_JIT_BUILD_DIR=$PWD/build-gpu PYTHONPATH=$site:$PWD/build-gpu/python
date -u
timeout 240 python3 benchmarks/python_wrappers_bench.py --library "fla gluon" --rounds 5 --calls 100 --json $L/fla-gluon.json > $L/fla-gluon.txt 2>&1
echo "bench exit $?"; grep -v Warning $L/fla-gluon.txt | tail -n 12
date -u
timeout 200 compute-sanitizer --tool memcheck --print-limit 20 python3 benchmarks/python_wrappers_bench.py --library "fla gluon" --rounds 1 --calls 2 > $L/fla-gluon-memcheck.txt 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|results|\| fla" $L/fla-gluon-memcheck.txt | tail -n 8
date -u
timeout 60 build-gpu/bin/test_decorated > $L/test_decorated.txt 2>&1; echo "test_decorated exit $?"; tail -n 3 $L/test_decorated.txt
cd $OUT && tar czf logs.tgz l && rm -rf l
