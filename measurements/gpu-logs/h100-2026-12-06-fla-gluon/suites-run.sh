#!/usr/bin/env bash
# One call: the full build, the C++ suites and the GPU-facing pytest (regressions after the
# decorated-tuple path and the dependency walk's prefilter).
set -u
L=$OUT/l; mkdir -p $L
cd "$(dirname "$0")/.."
OUT=$L timeout 570 bash scripts/gpu_check.sh build tests > $L/run.txt 2>&1
echo "exit $?"; grep -E "FAILED|passed|failed|error" $L/run.txt | tail -n 30
cd $OUT && tar czf logs.tgz l && rm -rf l
