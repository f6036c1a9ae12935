#!/usr/bin/env bash
# The AOT tool's tuple path on a real GPU: build, the aot stage (pair_sum tuned through a tuple of
# tensors), the decorated GPU suite, and memcheck of the aot tuning run.
set -u
L=$OUT/l; mkdir -p $L
cd "$(dirname "$0")/.."
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $L/machine.txt
OUT=$L timeout 300 bash scripts/gpu_check.sh build aot > $L/run.txt 2>&1
echo "gpu_check exit $?"; tail -n 12 $L/run.txt
B=build-gpu
cat $L/aot-tune.txt | tail -n 8
(cd $B && timeout 120 ctest -R "test_gpu_decorated|test_gpu_launch" --output-on-failure > $L/ctest.txt 2>&1); echo "ctest exit $?"; tail -n 4 $L/ctest.txt
rm -rf /tmp/aotm && mkdir -p /tmp/aotm
cp tests/kernels/decorated_kernels.py /tmp/aotm/
echo '{"target": "cuda:90", "kernels": [{"kernel": "decorated_kernels.py", "function": "pair_sum", "signatures": [[["*fp32:16", "*fp32"], "*fp32:16", "i32"]], "tune": [{"args": [[{"tensor": "fp32", "numel": 100000}, {"tensor": "fp32", "numel": 100000}], {"tensor": "fp32", "numel": 100000, "fill": "zero"}, 100000], "grid": ["cdiv(n, BLOCK)"]}]}]}' > /tmp/aotm/m.json
TRITON_JIT_CACHE_DIR=/tmp/aotm/cache timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 $B/bin/triton_jit_aot /tmp/aotm/m.json -o /tmp/aotm/bundle > $L/aot-memcheck.txt 2>&1
echo "memcheck exit $?"; grep -E "ERROR SUMMARY|^tuned|written" $L/aot-memcheck.txt
cd $OUT && tar czf logs.tgz l && rm -rf l
