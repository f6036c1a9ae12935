"""A kernel that takes Triton seconds to compile (a long unrolled chain), for tests that need a
compile in flight. SALT changes nothing but Triton's cache key, so that a test can ask for a
variant no earlier run compiled."""
import triton
import triton.language as tl


@triton.jit
def slow(x_ptr, out_ptr, n, STEPS: tl.constexpr, BLOCK: tl.constexpr, SALT: tl.constexpr = 0):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    for i in tl.static_range(STEPS):
        x = tl.sin(x) * 1.0001 + i
    tl.store(out_ptr + offsets, x, mask=offsets < n)
