"""A kernel module that fails while it is imported, as modules do that ask the GPU for something
at import (tests/cpu/test_compile_bridge.cpp)."""
import triton
import triton.language as tl

BLOCKS = {"small": 64}
DEFAULT_BLOCK = BLOCKS["large"]


@triton.jit
def never_reached(x_ptr, BLOCK: tl.constexpr):
    tl.store(x_ptr + tl.arange(0, BLOCK), 1.0)
