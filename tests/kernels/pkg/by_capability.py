"""A kernel whose package decides its block at import from the GPU's capability."""
import triton
import triton.language as tl

from .device_probe import MAJOR

BLOCK = 256 if MAJOR >= 9 else 128


@triton.jit
def fill_by_capability(x_ptr):
    tl.store(x_ptr + tl.arange(0, BLOCK), tl.full((BLOCK,), 1.0, tl.float32))
