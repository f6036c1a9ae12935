import triton
import triton.language as tl


@triton.jit
def leaky_relu(x):
    return tl.where(x >= 0, x, 0.01 * x)


@triton.jit
def square(x):
    return x * x


@triton.jit
def apply_kernel(x_ptr, out_ptr, n_elements, ACTIVATION: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, ACTIVATION(tl.load(x_ptr + offsets, mask=mask)), mask=mask)
