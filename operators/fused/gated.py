"""Gated MLP activations: out[r, j] = act(x[r, j]) * x[r, d + j] for rows of 2d contiguous
elements, in float32 (float64 for double)."""
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit(do_not_specialize=["R"])
def gated_kernel(x_ptr, out_ptr, R, D, ACT: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_D: tl.constexpr,
                 INDEX64: tl.constexpr, GDC: tl.constexpr = False):
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    if INDEX64:
        rows = rows.to(tl.int64)
    cols = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    mask = (rows[:, None] < R) & (cols[None, :] < D)
    COMPUTE: tl.constexpr = tl.float64 if x_ptr.dtype.element_ty == tl.float64 else tl.float32
    x = tl.load(x_ptr + rows[:, None] * (2 * D) + cols[None, :], mask=mask, other=0.0).to(COMPUTE)
    gate = tl.load(x_ptr + rows[:, None] * (2 * D) + D + cols[None, :], mask=mask, other=0.0).to(COMPUTE)
    if ACT == "silu":
        y = x / (1.0 + libdevice.exp(-x))
    elif ACT == "gelu":
        y = 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    else:  # "gelu_tanh"
        y = 0.5 * x * (1.0 + libdevice.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))
    tl.store(out_ptr + rows[:, None] * D + cols[None, :], (y * gate).to(out_ptr.dtype.element_ty), mask=mask)
