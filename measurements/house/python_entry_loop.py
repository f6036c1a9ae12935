"""A loop of kernel.warmup(...) calls of one compiled variant, for python_entry_instructions.sh."""
import gc
import sys

import torch
import triton
import triton.language as tl

import triton_jit


@triton.jit
def add(x, y, out, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(out + i, tl.load(x + i, mask=m) + tl.load(y + i, mask=m), mask=m)


if __name__ == "__main__":
    kernel = triton_jit.jit(add)
    x, y, out = torch.ones(1024), torch.ones(1024), torch.empty(1024)
    gc.disable()  # a collection in one run and not the other would be counted as the calls'
    for _ in range(int(sys.argv[1])):
        kernel.warmup(x, y, out, 1024, BLOCK=1024, grid=(1,))
