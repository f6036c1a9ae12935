"""Layouts the Hopper Gluon kernels share (matmul/matmul_gluon.py, attention/attention_gluon.py):
constexpr functions, evaluated while a kernel compiles. Beside the kernels at run time (the build
copies the kernel files into one folder), so they import it by its plain name."""
import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl


@gluon.constexpr_function
def wgmma_layout(rows, cols, num_warps, operand_bits):
    """The accumulator layout of a [rows, cols] wgmma tile on num_warps warps: warpgroups stacked
    along M first (each warp owns 16 whole rows, so row reductions stay inside a warp), the widest
    instruction N that divides cols."""
    warps = [4, 1]
    while warps[0] * warps[1] < num_warps:
        if rows > 16 * warps[0]:
            warps[0] *= 2
        else:
            warps[1] *= 2
    m_reps = triton.cdiv(rows, 16)
    n_reps = triton.cdiv(num_warps, m_reps)
    widest = max(cols // n_reps, 8)
    n = 256
    while n > widest or cols % n != 0:
        n -= 8
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=warps, instr_shape=[16, n, 256 // operand_bits])


@gluon.constexpr_function
def nvmma_layout(block_shape, dtype):
    """The shared-memory layout TMA and wgmma read a [rows, cols] block of dtype through."""
    return gl.NVMMASharedLayout.get_default_for(block_shape, dtype)
