"""Indexing kernels: rows picked by an index (index_select, embedding), gather, and the copies of
cat. An index outside its dim reads as zero instead of faulting (ATen stops with a device-side
assert there)."""
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["R", "L", "N"])
def index_rows_kernel(src_ptr, idx_ptr, out_ptr, R, L, N, K,
                      BLOCK_R: tl.constexpr, BLOCK_K: tl.constexpr, INDEX64: tl.constexpr):
    """out[m, l, k] = src[m, idx[l], k] for a contiguous src (M, N, K); rows r = m * L + l."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    if INDEX64:
        rows = rows.to(tl.int64)
    cols = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    row_mask = rows < R
    m = rows // L
    j = tl.load(idx_ptr + rows % L, mask=row_mask, other=0).to(tl.int64)
    valid = row_mask & (j >= 0) & (j < N)
    mask = valid[:, None] & (cols[None, :] < K)
    values = tl.load(src_ptr + (m * N + j)[:, None] * K + cols[None, :], mask=mask, other=0)
    tl.store(out_ptr + rows[:, None] * K + cols[None, :], values, mask=row_mask[:, None] & (cols[None, :] < K))


@triton.jit(do_not_specialize=["size1", "size2", "size3", "ss0", "ss1", "ss2", "ss3", "is0", "is1", "is2", "is3",
                               "dim_size"])
def gather_kernel(src_ptr, idx_ptr, out_ptr, n, size1, size2, size3, ss0, ss1, ss2, ss3, is0, is1, is2, is3,
                  dim_size, DIM: tl.constexpr, BLOCK: tl.constexpr, INDEX64: tl.constexpr):
    """out[i] = src[i with coordinate DIM replaced by index[i]], over index's shape (as four dims)."""
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if INDEX64:
        i = i.to(tl.int64)
    mask = i < n
    i3 = i % size3
    rest = i // size3
    i2 = rest % size2
    rest = rest // size2
    i1 = rest % size1
    i0 = rest // size1
    j = tl.load(idx_ptr + i0 * is0 + i1 * is1 + i2 * is2 + i3 * is3, mask=mask, other=0).to(tl.int64)
    valid = mask & (j >= 0) & (j < dim_size)
    if DIM == 0:
        i0 = j
    elif DIM == 1:
        i1 = j
    elif DIM == 2:
        i2 = j
    else:
        i3 = j
    values = tl.load(src_ptr + i0 * ss0 + i1 * ss1 + i2 * ss2 + i3 * ss3, mask=valid, other=0)
    tl.store(out_ptr + i, values, mask=mask)


@triton.jit
def _copy_columns(src_ptr, dst_ptr, rows, cols, C, dst_row, dst_offset, R):
    """dst[r * dst_row + dst_offset + c] = src[r * C + c] for a contiguous src (R, C)."""
    mask = (rows[:, None] < R) & (cols[None, :] < C)
    values = tl.load(src_ptr + rows[:, None] * C + cols[None, :], mask=mask)
    OUT: tl.constexpr = dst_ptr.dtype.element_ty
    if OUT == tl.int1:
        values = values != 0
    tl.store(dst_ptr + rows[:, None] * dst_row + dst_offset + cols[None, :], values.to(OUT), mask=mask)


@triton.jit(do_not_specialize=["c0", "c1", "c2", "c3", "o0", "o1", "o2", "o3", "R", "dst_row"])
def cat_kernel(dst_ptr, s0, s1, s2, s3, c0, c1, c2, c3, o0, o1, o2, o3, R, dst_row, NUM: tl.constexpr,
               BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr, INDEX64: tl.constexpr):
    """cat of up to four inputs in one launch: program (row-block, column-block, input); input i
    (R, c_i contiguous) goes to columns o_i of the output viewed as (R, dst_row)."""
    rows = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)
    cols = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)
    if INDEX64:
        rows = rows.to(tl.int64)
        cols = cols.to(tl.int64)
    which = tl.program_id(2)
    if which == 0:
        _copy_columns(s0, dst_ptr, rows, cols, c0, dst_row, o0, R)
    if NUM > 1:
        if which == 1:
            _copy_columns(s1, dst_ptr, rows, cols, c1, dst_row, o1, R)
    if NUM > 2:
        if which == 2:
            _copy_columns(s2, dst_ptr, rows, cols, c2, dst_row, o2, R)
    if NUM > 3:
        if which == 3:
            _copy_columns(s3, dst_ptr, rows, cols, c3, dst_row, o3, R)
