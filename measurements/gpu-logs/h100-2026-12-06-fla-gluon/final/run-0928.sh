#!/usr/bin/env bash
# One call, on the final code: targets build; test_gpu_launch and its memcheck; the Python
# entry's tests; fla's Gluon wrappers with install() (a grid lambda over a tuple call).
set -u
L=$OUT/l; mkdir -p $L
export PYTHONUNBUFFERED=1
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $L/machine.txt; date -u >> $L/machine.txt; cat $L/machine.txt
TRITON_JIT_TARGETS="triton_jit_launch triton_jit_python triton_jit_ops test_gpu_launch" TRITON_JIT_BUILD_DIR=$PWD/build-gpu OUT=$L timeout 170 bash scripts/gpu_check.sh build > $L/build.txt 2>&1
echo "build exit $?"; tail -n 1 $L/build.txt
export TRITON_JIT_BUILD_DIR=$PWD/build-gpu
timeout 120 build-gpu/bin/test_gpu_launch > $L/test_gpu_launch.txt 2>&1; echo "test_gpu_launch exit $?"; tail -n 1 $L/test_gpu_launch.txt
timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 build-gpu/bin/test_gpu_launch \
  --gtest_filter=-*Thousand*:*NoHeapAllocation* > $L/memcheck-launch.txt 2>&1
echo "memcheck test_gpu_launch: exit $? ($(grep -cE '^=========.*(Invalid|Error)' $L/memcheck-launch.txt) errors)"; tail -n 2 $L/memcheck-launch.txt
timeout 150 python3 -m pytest -q -p no:cacheprovider tests/python/test_python_entry.py > $L/pyentry-tests.txt 2>&1; echo "pyentry exit $?"; tail -n 1 $L/pyentry-tests.txt
site=/tmp/fla-site
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target $site .whl/*.whl > $L/pip.txt 2>&1
PYTHONPATH=$site:$PWD/build-gpu/python timeout 120 python3 benchmarks/python_wrappers_bench.py --library "fla gluon" --rounds 5 --calls 100 > $L/fla-gluon.txt 2>&1
echo "fla exit $?"; grep -v Warning $L/fla-gluon.txt | tail -n 8
cd $OUT && tar czf logs.tgz l && rm -rf l
