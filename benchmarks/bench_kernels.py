import triton
import triton.language as tl


@triton.jit
def add_small(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def add_many(x_ptr, y_ptr, out_ptr, n, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, BLOCK: tl.constexpr):
    """The same work with 16 runtime arguments, to show the per-argument cost."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    extra = a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11 + a12
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(out_ptr + offsets, x + tl.load(y_ptr + offsets, mask=mask) + extra, mask=mask)
