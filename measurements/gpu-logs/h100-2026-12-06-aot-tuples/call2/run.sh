#!/usr/bin/env bash
# memcheck of triton_jit_aot compiling and tuning a tuple-taking kernel, as gpu_check's memcheck runs it.
set -u
L=$OUT/l; mkdir -p $L
cd "$(dirname "$0")/.."
B=build-gpu
rm -rf /tmp/aotm && mkdir -p /tmp/aotm
cp tests/kernels/decorated_kernels.py /tmp/aotm/
echo '{"target": "cuda:90", "kernels": [{"kernel": "decorated_kernels.py", "function": "pair_sum", "signatures": [[["*fp32:16", "*fp32"], "*fp32:16", "i32"]], "tune": [{"args": [[{"tensor": "fp32", "numel": 100000}, {"tensor": "fp32", "numel": 100000}], {"tensor": "fp32", "numel": 100000, "fill": "zero"}, 100000], "grid": ["cdiv(n, BLOCK)"]}]}]}' > /tmp/aotm/m.json
TRITON_JIT_CACHE_DIR=/tmp/aotm/cache timeout 200 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 $B/bin/triton_jit_aot /tmp/aotm/m.json -o /tmp/aotm/bundle > $L/aot-memcheck.txt 2>&1
echo "memcheck exit $?"; cat $L/aot-memcheck.txt
cd $OUT && tar czf logs.tgz l && rm -rf l
