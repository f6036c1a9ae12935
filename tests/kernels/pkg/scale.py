"""A kernel inside a package, using a relative import of a JIT helper."""
import triton
import triton.language as tl

from .helpers import twice


@triton.jit
def scale_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, twice(tl.load(x_ptr + offsets, mask=mask)), mask=mask)
