#!/usr/bin/env bash
# The GPU verification in one call, for a machine with a GPU and a preinstalled Python that has
# torch and triton (no internet): builds against that Python (Release), runs every C++ suite
# (GPU ones included) and the GPU-facing Python tests, the demo (cold, then warm and offline),
# the launch benchmarks, the comparison of autotuning with Triton's own, triton_jit_aot tuning
# into a bundle that an offline process then uses, and the GPU suites under compute-sanitizer. Keeps every log under $OUT (or ./gpu-logs). The CPU-only stages (sanitizer
# builds, fuzzing, packaging, the Triton parity tests) run in CI, not here.
#   bash scripts/gpu_check.sh [stage ...]   stages: build tests optests demo llama readme-demo compat benchmarks
#                                           pyentry ops llm attention sweep autotune tma aot gluon memcheck
#                                           (default: all); decode: the decode GEMMs against the
#                                           memory's copy and read stream; decoder: the C++ decoder
#                                           at Llama-3-8B's and Qwen2.5-7B's shapes, batch 1-32,
#                                           context 128 and 4096, beside torch.compile; configs: the
#                                           decoder on each config.json of demo/configs (Qwen3, Llama
#                                           3.1, Mistral), its logits against the eager model; house: the
#                                           launch hit of this tree against the base tree in
#                                           .house-base/ (measurements/README.md);
#                                           wrappers: real libraries' wrappers with and without
#                                           install() (fla's Gluon backends among them), and a model
#                                           step on Liger's and FlagGems' kernels both ways, from
#                                           wheels in .whl/ (liger-kernel, flag-gems, fla-core,
#                                           einops) and
#                                           flash-attention's sources in .flash-attn/
# A machine that limits one command's time runs them in two calls: "build tests demo", then the rest.
set -uo pipefail
stages=" ${*:-build tests optests demo llama readme-demo compat benchmarks pyentry ops llm attention sweep autotune tma aot gluon memcheck} "
want() { [[ "$stages" == *" $1 "* ]]; }
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$root/gpu-logs}
mkdir -p "$out"
export TRITON_JIT_PYTHON=${TRITON_JIT_PYTHON:-$(command -v python3)}
export TRITON_JIT_BUILD_DIR=${TRITON_JIT_BUILD_DIR:-$root/build-gpu}
export CMAKE_BUILD_TYPE=Release
export PYTHONUNBUFFERED=1
export TRITON_JIT_NO_APT=1 TRITON_JIT_SKIP_SANITIZERS=1
build=$TRITON_JIT_BUILD_DIR
# xxHash's header, carried when the machine has no package for it.
if [ ! -f /usr/include/xxhash.h ] && [ -f "$root/.deps/xxhash/xxhash.h" ]; then
  export TRITON_JIT_CMAKE_ARGS="-DTRITON_JIT_XXHASH_INCLUDE_DIR=$root/.deps/xxhash ${TRITON_JIT_CMAKE_ARGS:-}"
fi
stage() { echo "== $1 ($(date -u +%H:%M:%S))"; }

{
  stage "machine"
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  "$TRITON_JIT_PYTHON" -c "import sys, torch, triton; print('python', sys.version.split()[0], 'torch', torch.__version__, 'triton', triton.__version__, 'cuda', torch.version.cuda)"
  nvcc --version | tail -n 2
  g++ --version | head -n 1
} 2>&1 | tee "$out/machine.txt"

if want build; then
stage "build"
bash "$root/scripts/build.sh" > "$out/build.txt" 2>&1 || { tail -n 40 "$out/build.txt"; exit 1; }
tail -n 3 "$out/build.txt"
fi

if want tests; then
stage "C++ suites"
results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
# Every suite CTest knows (tests/CMakeLists.txt labels them), one at a time: the GPU ones time.
tests=($(cd "$build" && ctest -N -L '^(cpu|gpu)$' | sed -n 's/^ *Test *#[0-9]*: *//p'))
for t in "${tests[@]}"; do
  timeout 900 "$build/bin/$t" --gtest_output="json:$results/$t.json" > "$out/$t.txt" 2>&1
  grep -E '^\[  (FAILED|PASSED|SKIPPED) |Failure|^matmul |^attention |^tma matmul ' "$out/$t.txt"
done
stage "pytest (GPU-facing)"
# The tests marked gpu (tests/python/conftest.py), less the two files with stages of their own.
TRITON_JIT_BUILD_DIR="$build" timeout 900 "$TRITON_JIT_PYTHON" -m pytest -q -rsP -m gpu "$root/tests/python" \
  --ignore="$root/tests/python/test_ops.py" --ignore="$root/tests/python/test_gluon.py" --junitxml="$results/pytest.xml" 2>&1 | tee "$out/pytest.txt" | tail -n 5
"$TRITON_JIT_PYTHON" "$root/scripts/summarize_tests.py" "$results" "${tests[@]}" pytest 2>&1 | tee "$out/tests.txt"
fi

if want optests; then
stage "operator library against ATen (${TRITON_JIT_OPS_SHARDS:=8} processes)"
ops_results_dir="$build/ops-results"
rm -rf "$ops_results_dir" && mkdir -p "$ops_results_dir"
ops_pids=()
for ((shard = 0; shard < TRITON_JIT_OPS_SHARDS; shard++)); do
  TRITON_JIT_BUILD_DIR="$build" TRITON_JIT_TEST_SHARD="$shard/$TRITON_JIT_OPS_SHARDS" timeout 900 \
    "$TRITON_JIT_PYTHON" -m pytest -q -rfs "$root/tests/python/test_ops.py" -p no:cacheprovider \
    ${TRITON_JIT_OPS_FILTER:+-k "$TRITON_JIT_OPS_FILTER"} --junitxml="$ops_results_dir/ops-$shard.xml" \
    > "$out/ops-$shard.txt" 2>&1 &
  ops_pids+=($!)
done
wait "${ops_pids[@]}"
cat "$out"/ops-*.txt | grep -E '^(FAILED|ERROR)' | head -n 60
tail -q -n 1 "$out"/ops-*.txt
ops_results=()
for ((shard = 0; shard < TRITON_JIT_OPS_SHARDS; shard++)); do ops_results+=("ops-$shard"); done
"$TRITON_JIT_PYTHON" "$root/scripts/summarize_tests.py" "$ops_results_dir" "${ops_results[@]}" 2>&1 | tee "$out/ops-tests.txt"
fi

if want demo; then
stage "demo"
demo_cache="$build/demo-cache"
rm -rf "$demo_cache"
TRITON_JIT_CACHE_DIR="$demo_cache" "$build/bin/triton_jit_demo" 2>&1 | tee "$out/demo.txt" | tail -n 4
TRITON_JIT_CACHE_DIR="$demo_cache" TRITON_JIT_OFFLINE=1 PYTHONHOME=/nonexistent \
  "$build/bin/triton_jit_demo" 2>&1 | tee "$out/demo-warm.txt" | tail -n 3
fi

if want llama; then
  stage "a Llama-style decoder from C++ against the same model in eager PyTorch, and under torch.compile"
  timeout 900 "$build/bin/triton_jit_llama" 2>&1 | tee "$out/llama.txt" | tail -n 8
  timeout 900 "$TRITON_JIT_PYTHON" "$root/demo/llama_torch.py" --layers 4 --ours "$out/llama.txt" 2>&1 |
    grep -v Warning | tee "$out/llama-torch.txt" | tail -n 4
fi
if want readme-demo; then
  stage "the README's first command"
  timeout 900 bash "$root/scripts/run_demo.sh" > "$out/readme-demo.txt" 2>&1
  echo "run_demo.sh: exit $?"
  tail -n 12 "$out/readme-demo.txt"
fi
if want sweep; then
  stage "the LLM kernels over their tuning spaces against ATen (${TRITON_JIT_SWEEP_PARTS:=gemm,bmm,softmax,reduce,topk,attention})"
  timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/ops/sweep_kernels.py" --parts "$TRITON_JIT_SWEEP_PARTS" \
    --json "$out/sweep.json" 2>&1 | grep -v Warning | tee "$out/sweep.txt" | tail -n 40
fi

if want compat; then
  stage "a libtriton_jit-style project against the installed library, its ops against ATen"
  compat_prefix="$build/compat-prefix"
  rm -rf "$compat_prefix" "$build/compat"
  cmake --install "$build" --prefix "$compat_prefix" > "$out/compat.txt" 2>&1
  torch_prefix=$("$TRITON_JIT_PYTHON" -c "import torch.utils; print(torch.utils.cmake_prefix_path)")
  { cmake -S "$root/tests/compat_consumer" -B "$build/compat" -G Ninja -DCMAKE_PREFIX_PATH="$compat_prefix;$torch_prefix" &&
    cmake --build "$build/compat" && (cd "$root/tests/compat_consumer/kernels" && "$build/compat/test_my_ops"); } \
    >> "$out/compat.txt" 2>&1
  echo "compat consumer: exit $?"
  grep -E "matches ATen|MISMATCH|mismatches|compat consumer" "$out/compat.txt"
fi

if want benchmarks; then
  stage "benchmarks"
  TRITON_JIT_SKIP_FIRST_LAUNCH=${TRITON_JIT_SKIP_FIRST_LAUNCH:-1} timeout 900 bash "$root/scripts/run_benchmarks.sh" \
    > "$out/benchmarks.txt" 2>&1
  grep -A 30 "Paired timing" "$out/benchmarks.txt" | head -n 40
fi
if want house && [ -d "$root/.house-base" ]; then
  stage "the hit path against the base tree, builds alternating"
  HEAD_BUILD="$build" OUT="$out" timeout 900 bash "$root/measurements/house/paired_builds.sh" "$root/.house-base" 5
fi
if want wrappers; then
  stage "real libraries' Python wrappers, on Triton's launch and with install()"
  site=/tmp/wrapper-site
  [ -d "$root/.whl" ] && "$TRITON_JIT_PYTHON" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir \
    --upgrade --target "$site" "$root"/.whl/*.whl > "$out/wrappers-install.txt" 2>&1
  PYTHONPATH="$site:$build/python${PYTHONPATH:+:$PYTHONPATH}" timeout 900 "$TRITON_JIT_PYTHON" \
    "$root/benchmarks/python_wrappers_bench.py" --flash-attn-src "$root/.flash-attn" --json "$out/wrappers.json" 2>&1 |
    grep -v Warning | tee "$out/wrappers.txt" | tail -n 20
  for library in liger flaggems; do
    GEMS_VENDOR=nvidia FLAGGEMS_DB_URL="sqlite:///$out/flaggems_tuned.db" \
      PYTHONPATH="$site:$build/python${PYTHONPATH:+:$PYTHONPATH}" timeout 900 "$TRITON_JIT_PYTHON" \
      "$root/benchmarks/library_decode_step.py" --library $library --json "$out/$library-step.json" 2>&1 |
      grep -v Warning | tee "$out/$library-step.txt" | tail -n 8
  done
fi
if want decoder; then
  stage "the decoder at both models' shapes, batch 1, 8 and 32, context 128 and 4096, beside eager and torch.compile"
  for model in ${TRITON_JIT_DECODER_MODELS:-llama-3-8b qwen2.5-7b}; do
    timeout 900 "$build/bin/triton_jit_llama" --model $model --batch 1,8,32 --context 128,4096 --steps 16 --timeline 2>&1 |
      tee "$out/decoder-$model.txt" | grep -E 'reads|timeline at|dependent launches:|fastest of ours|graph launches|triton_jit_llama'
    timeout 900 "$TRITON_JIT_PYTHON" "$root/demo/llama_torch.py" --model $model --layers 4 --batch 1,8,32 \
      --context 128,4096 --ours "$out/decoder-$model.txt" 2>&1 | grep -v Warning | tee "$out/decoder-$model-torch.txt" | tail -n 7
  done
fi
if want configs; then
  stage "triton_jit_llama on other models' config.json (demo/configs): logits against the eager model"
  for config in "$root"/demo/configs/*.json; do
    timeout 300 "$build/bin/triton_jit_llama" --config "$config" --layers 2 --batch 1,8 --context 128 --steps 8 2>&1 |
      tee "$out/config-$(basename "$config" .json).txt" | grep -E 'layer shapes|decode step at|triton_jit_llama'
  done
fi
if want pyentry; then
  stage "Python entry (triton_jit.jit): its tests, the launch table, and memcheck of its launches"
  TRITON_JIT_BUILD_DIR="$build" timeout 600 "$TRITON_JIT_PYTHON" -m pytest -q -rsP "$root/tests/python/test_python_entry.py" \
    2>&1 | tee "$out/pyentry-tests.txt" | tail -n 5
  timeout 600 "$TRITON_JIT_PYTHON" "$root/benchmarks/python_launch_bench.py" --ops-library "$build/lib/libtriton_jit_ops.so" \
    --build "$build" 2>&1 | tee "$out/pyentry-bench.txt"
  if command -v compute-sanitizer > /dev/null; then
    TRITON_JIT_BUILD_DIR="$build" timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
      "$TRITON_JIT_PYTHON" -m pytest -q -p no:cacheprovider "$root/tests/python/test_python_entry.py" -k "match_triton or meta or stream" \
      > "$out/memcheck-pyentry.txt" 2>&1
    echo "memcheck test_python_entry: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-pyentry.txt") errors)"
    tail -n 3 "$out/memcheck-pyentry.txt"
  fi
fi
if want ops; then
  stage "operator benchmarks against ATen"
  TRITON_JIT_BUILD_DIR="$build" timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/ops/bench_ops.py" \
    --library "$build/lib/libtriton_jit_ops.so" --json "$out/ops-bench.json" 2>&1 | tee "$out/ops-bench.txt" | tail -n 80
fi
if want decode; then
  stage "decode-step GEMMs against the memory's bandwidth: ours, the Gluon GEMM and cuBLAS"
  TRITON_JIT_BUILD_DIR="$build" PYTHONPATH="$build/python" timeout 900 "$TRITON_JIT_PYTHON" \
    "$root/benchmarks/decode_gemv.py" --library "$build/lib/libtriton_jit_ops.so" --json "$out/decode-gemv.json" 2>&1 |
    tee "$out/decode-gemv.txt" | tail -n 130
fi
if want llm; then
  stage "operators at Llama-3-8B shapes, and an eager decoder block with the stand-ins off and on"
  TRITON_JIT_BUILD_DIR="$build" timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/ops/bench_llm.py" \
    --library "$build/lib/libtriton_jit_ops.so" ${TRITON_JIT_LLM_ARGS:-} --json "$out/llm.json" 2>&1 | grep -v Warning |
    tee "$out/llm.txt" | tail -n 100
fi
if want attention; then
  stage "attention against SDPA-flash and eager paged decoding"
  TRITON_JIT_BUILD_DIR="$build" timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/ops/bench_attention.py" \
    --library "$build/lib/libtriton_jit_ops.so" --json "$out/attention.json" 2>&1 | tee "$out/attention.txt" | tail -n 30
fi
if want autotune; then
  stage "autotuning against Triton's"
  timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/autotune/compare.py" --build "$build" \
    --json "$out/autotune.json" 2>&1 | tee "$out/autotune.txt" | tail -n 14
fi

if want tma; then
  stage "TMA matmul with host descriptors against Triton's launch"
  timeout 900 "$TRITON_JIT_PYTHON" "$root/benchmarks/tma/compare.py" --build "$build" \
    --json "$out/tma.json" 2>&1 | tee "$out/tma.txt" | tail -n 14
fi

if want aot; then
  stage "triton_jit_aot tunes into a bundle; an offline process uses it"
  aot_dir="$build/aot-tune"
  rm -rf "$aot_dir"
  TRITON_JIT_CACHE_DIR="$aot_dir/cache" timeout 900 "$build/bin/triton_jit_aot" \
    "$root/tests/kernels/aot_tune_manifest.json" -o "$aot_dir/bundle" > "$out/aot-tune.txt" 2>&1
  echo "triton_jit_aot: exit $?"
  grep -E '^tuned|written to' "$out/aot-tune.txt"
  TRITON_JIT_CACHE_DIR="$aot_dir/empty" TRITON_JIT_BUNDLE_PATH="$aot_dir/bundle" TRITON_JIT_OFFLINE=1 \
    PYTHONHOME=/nonexistent "$build/bin/tune_probe" "$root/tests/kernels/decorated_kernels.py" 4096 device 2>&1 |
    tee "$out/aot-offline.txt" | tail -n 1
fi

if want gluon; then
  stage "Gluon kernels: their tests, the GEMM against cuBLAS, attention against SDPA, memcheck of the launches"
  # The stream-K, ping-pong and sliced GEMMs first and on a short leash: a fault in how they count
  # a cut tile's pieces, a warpgroup's ring positions or a stage's arrivals hangs rather than
  # fails; the table then leaves them out.
  TRITON_JIT_BUILD_DIR="$build" timeout 300 "$TRITON_JIT_PYTHON" -m pytest -q -rs -p no:cacheprovider \
    "$root/tests/python/test_gluon.py" -k "stream_k or pingpong or sliced" 2>&1 | tee "$out/gluon-new-gemm-tests.txt" |
    tail -n 5
  new_gemms_ok=${PIPESTATUS[0]}
  TRITON_JIT_BUILD_DIR="$build" timeout 600 "$TRITON_JIT_PYTHON" -m pytest -q -rs -p no:cacheprovider \
    "$root/tests/python/test_gluon.py" -k "not stream_k and not pingpong and not sliced" 2>&1 |
    tee "$out/gluon-tests.txt" | tail -n 5
  TRITON_JIT_BUILD_DIR="$build" PYTHONPATH="$build/python" timeout 600 "$TRITON_JIT_PYTHON" "$root/benchmarks/gluon_gemm.py" \
    --library "$build/lib/libtriton_jit_ops.so" ${TRITON_JIT_GEMM_ARGS:-} \
    $([ "$new_gemms_ok" = 0 ] || echo --kernels whole) --out "$out" 2>&1 |
    tee "$out/gemm-run.txt" | tail -n 80
  # The attention kernels against a float32 reference, then batches of short sequences beside SDPA.
  timeout 600 "$TRITON_JIT_PYTHON" "$root/benchmarks/gluon_attention.py" --quick --no-bench \
    --kernel ws,pingpong,ordered,persistent,persistent-ordered 2>&1 | tee "$out/gluon-attention-check.txt" | tail -n 2
  timeout 600 "$TRITON_JIT_PYTHON" "$root/benchmarks/gluon_attention.py" --no-check --lengths 1024,4096,16384 \
    --gqa 32/8 --kernel pingpong,ordered 2>&1 | tee "$out/gluon-attention-single.txt" | tail -n 8
  timeout 600 "$TRITON_JIT_PYTHON" "$root/benchmarks/gluon_attention.py" --no-check --batches \
    --kernel pingpong,persistent,persistent-ordered 2>&1 | tee "$out/gluon-attention-batches.txt" | tail -n 20
  if command -v compute-sanitizer > /dev/null; then
    TRITON_JIT_BUILD_DIR="$build" timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 \
      "$TRITON_JIT_PYTHON" -m pytest -q -p no:cacheprovider "$root/tests/python/test_gluon.py" \
      -k "bit_for_bit or (matches_torch and bf16 and kmajor and (1x4096x4096 or 128x4096x4096 or 1000x1000x2000)) or ((stream_k or pingpong) and kmajor and (512x4608x3584 or 1000x1000x2000)) or (sliced and (512x4608x3584 or 300x1000x2000))" \
      > "$out/memcheck-gluon.txt" 2>&1
    echo "memcheck test_gluon: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-gluon.txt") errors)"
    tail -n 3 "$out/memcheck-gluon.txt"
  fi
fi

if want memcheck && command -v compute-sanitizer > /dev/null; then
  stage "compute-sanitizer memcheck"
  timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 "$build/bin/test_gpu_launch" \
    --gtest_filter=-*Thousand*:*NoHeapAllocation* > "$out/memcheck-launch.txt" 2>&1
  echo "memcheck test_gpu_launch: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-launch.txt") errors)"
  timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 "$build/bin/test_gpu_decorated" \
    --gtest_filter=*Softmax*:*Even*:*Reset*:*Activations* > "$out/memcheck-decorated.txt" 2>&1
  echo "memcheck test_gpu_decorated: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-decorated.txt") errors)"
  timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 "$build/bin/test_ops_stand_in" \
    > "$out/memcheck-ops.txt" 2>&1
  echo "memcheck test_ops_stand_in: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-ops.txt") errors)"
  timeout 600 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 3 "$build/bin/test_gpu_production" \
    --gtest_filter=Production.*:-*Tuning* > "$out/memcheck-production.txt" 2>&1
  echo "memcheck test_gpu_production: exit $? ($(grep -cE '^=========.*(Invalid|Error)' "$out/memcheck-production.txt") errors)"
fi
stage "done"
