import triton
import triton.language as tl


@triton.jit
def broken(x_ptr, n):
    offsets = tl.arange(0, 16
    tl.store(x_ptr + offsets, n)
