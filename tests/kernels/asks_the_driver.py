"""Kernel modules that ask Triton's driver for the device and target while they are imported, as
Triton's tutorials and many libraries do (tests/cpu/test_compile_bridge.cpp: warmup on a machine
without a GPU)."""
import triton
import triton.language as tl

DEVICE = triton.runtime.driver.active.get_active_torch_device()


def is_hopper():
    target = triton.runtime.driver.active.get_current_target()
    return target.backend == "cuda" and target.arch >= 90


BLOCKS = (128, 256) if is_hopper() else (64,)


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in BLOCKS], key=["n"])
@triton.jit
def scaled_by_target(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)
