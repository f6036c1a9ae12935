"""A kernel that takes anything, for the differential test of argument kinds
(tests/python/test_argument_kinds.py): its body uses neither parameter, so every variant compiles
quickly."""
import triton
import triton.language as tl


@triton.jit
def takes(x, C: tl.constexpr):
    pass


@triton.jit
def helper(v):
    return v


@triton.jit
def reads_fields(out, p, N: tl.constexpr):
    """Reads a namedtuple's fields by name: what compiles depends on the names, not only the
    positions."""
    offsets = tl.arange(0, N)
    tl.store(out + offsets, p.scale * offsets + p.shift.low)


@triton.jit
def copies_fields(p, n, C: tl.constexpr):
    """A namedtuple of pointers, and one passed to a constexpr parameter, read by name."""
    offsets = tl.arange(0, C.block)
    tl.store(p.dst + offsets, tl.load(p.src + offsets, mask=offsets < n) * C.scale, mask=offsets < n)
