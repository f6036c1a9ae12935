import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n_elements,
               size1, size2, size3,
               x_stride0, x_stride1, x_stride2, x_stride3,
               y_stride0, y_stride1, y_stride2, y_stride3,
               BLOCK_SIZE: tl.constexpr):
    """out = x + y over a rank-4 view; broadcast dimensions have stride 0, out is contiguous."""
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    i3 = offsets % size3
    rest = offsets // size3
    i2 = rest % size2
    rest = rest // size2
    i1 = rest % size1
    i0 = rest // size1
    x_offsets = i0 * x_stride0 + i1 * x_stride1 + i2 * x_stride2 + i3 * x_stride3
    y_offsets = i0 * y_stride0 + i1 * y_stride1 + i2 * y_stride2 + i3 * y_stride3
    out_type = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + x_offsets, mask=mask).to(out_type)
    y = tl.load(y_ptr + y_offsets, mask=mask).to(out_type)
    tl.store(out_ptr + offsets, x + y, mask=mask)


@triton.jit
def add_scalar_kernel(x_ptr, other, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    """out = x + other for a contiguous x."""
    pid = tl.program_id(axis=0)
    offsets = pid.to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    out_type = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + offsets, mask=mask).to(out_type)
    tl.store(out_ptr + offsets, x + other.to(out_type), mask=mask)
