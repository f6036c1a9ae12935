"""A kernel module that takes seconds to import (its top level sleeps, releasing the GIL), for
tests that need a thread inside Python's import machinery when another thread forks."""
import time

import triton
import triton.language as tl

time.sleep(3)


@triton.jit
def copy(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)
