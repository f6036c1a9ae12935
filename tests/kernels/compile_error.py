import triton
import triton.language as tl


@triton.jit
def bad_block(x_ptr, n, BLOCK: tl.constexpr):
    # tl.arange needs a power-of-two range: Triton rejects BLOCK=100 at compile time.
    offsets = tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, n, mask=offsets < n)
