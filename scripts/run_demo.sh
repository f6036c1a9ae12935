#!/usr/bin/env bash
# Builds everything and runs triton_jit_demo: on a GPU it launches the example operators and
# checks them against PyTorch; without one it compiles them for cuda:90 and says launching was
# skipped. Then triton_jit_llama, a decoder run from C++ (GPU only), and the same decoder in
# PyTorch eager and under torch.compile beside its figures (demo/llama_torch.py).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TRITON_JIT_BUILD_DIR:-$root/build}
python=$(bash "$root/scripts/build.sh" | tail -n 1)
"$build/bin/triton_jit_demo"
# A Llama-style decoder at Llama-3-8B layer shapes from C++, checked against the same model in
# eager PyTorch (on a GPU; without one it says launching was skipped).
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$build/bin/triton_jit_llama" --layers 2 --batch 1,32 --steps 16 | tee "$log"
if ! grep -q "launching was skipped" "$log"; then
  "$python" "$root/demo/llama_torch.py" --layers 2 --batch 1,32 --ours "$log"
fi
