"""softmax and log_softmax over the middle dim of a contiguous (M, N, K) view, in float32 (float64
for double). softmax_rows_kernel (K == 1) holds a row in registers when it fits (ONE_PASS), else
keeps a running maximum and sum per lane and reads the row twice; softmax_kernel does the same for
(BLOCK_N, BLOCK_K) tiles when K > 1."""
import triton
import triton.language as tl


@triton.jit
def _finish(x, row_max, total, LOG: tl.constexpr):
    if LOG:
        return x - row_max - tl.log(total)
    else:
        return tl.exp(x - row_max) / total


@triton.jit
def _online(x, m, s):
    """One step of the running maximum m and sum s (of exp(x - m)), lane by lane. Lanes that saw
    only -inf keep m = -inf and s = 0."""
    m_new = tl.maximum(m, x)
    scale = tl.where(m == m_new, 1.0, tl.exp(m - m_new))
    e = tl.where(x == float("-inf"), 0.0, tl.exp(x - m_new))
    return m_new, s * scale + e


@triton.jit(do_not_specialize=["M"])
def softmax_rows_kernel(x_ptr, out_ptr, M, N, LOG: tl.constexpr, ONE_PASS: tl.constexpr, BLOCK_N: tl.constexpr,
                        INDEX64: tl.constexpr):
    row = tl.program_id(0)
    if INDEX64:
        row = row.to(tl.int64)
    COMPUTE: tl.constexpr = tl.float64 if (x_ptr.dtype.element_ty == tl.float64 or
                                           out_ptr.dtype.element_ty == tl.float64) else tl.float32
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    x_row = x_ptr + row * N
    out_row = out_ptr + row * N
    cols = tl.arange(0, BLOCK_N)
    if ONE_PASS:
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=float("-inf")).to(COMPUTE)
        row_max = tl.max(x, axis=0)
        total = tl.sum(tl.where(mask, tl.exp(x - row_max), 0.0), axis=0)
        tl.store(out_row + cols, _finish(x, row_max, total, LOG).to(OUT), mask=mask)
    else:
        m = tl.full([BLOCK_N], float("-inf"), COMPUTE)
        s = tl.zeros([BLOCK_N], COMPUTE)
        for n0 in range(0, N, BLOCK_N):
            x = tl.load(x_row + n0 + cols, mask=n0 + cols < N, other=float("-inf")).to(COMPUTE)
            m, s = _online(x, m, s)
        row_max = tl.max(m, axis=0)
        total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
        for n0 in range(0, N, BLOCK_N):
            mask = n0 + cols < N
            x = tl.load(x_row + n0 + cols, mask=mask, other=float("-inf")).to(COMPUTE)
            tl.store(out_row + n0 + cols, _finish(x, row_max, total, LOG).to(OUT), mask=mask)


@triton.jit(do_not_specialize=["M", "K"])
def softmax_kernel(x_ptr, out_ptr, M, N, K, LOG: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                   INDEX64: tl.constexpr):
    pid_m = tl.program_id(0)
    if INDEX64:
        pid_m = pid_m.to(tl.int64)
    offs_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    k_mask = offs_k < K
    COMPUTE: tl.constexpr = tl.float64 if (x_ptr.dtype.element_ty == tl.float64 or
                                           out_ptr.dtype.element_ty == tl.float64) else tl.float32
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    base = pid_m * N * K
    rows = tl.arange(0, BLOCK_N)
    m = tl.full([BLOCK_N, BLOCK_K], float("-inf"), COMPUTE)
    s = tl.zeros([BLOCK_N, BLOCK_K], COMPUTE)
    for n0 in range(0, N, BLOCK_N):
        mask = ((n0 + rows)[:, None] < N) & k_mask[None, :]
        x = tl.load(x_ptr + base + (n0 + rows)[:, None] * K + offs_k[None, :], mask=mask,
                    other=float("-inf")).to(COMPUTE)
        m, s = _online(x, m, s)
    col_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - col_max[None, :])), axis=0)
    for n0 in range(0, N, BLOCK_N):
        mask = ((n0 + rows)[:, None] < N) & k_mask[None, :]
        offsets = base + (n0 + rows)[:, None] * K + offs_k[None, :]
        x = tl.load(x_ptr + offsets, mask=mask, other=float("-inf")).to(COMPUTE)
        tl.store(out_ptr + offsets, _finish(x, col_max[None, :], total[None, :], LOG).to(OUT), mask=mask)


# ---- few long rows -----------------------------------------------------------------------------
# One program per row leaves the GPU idle when the rows are few and long (a vocabulary's logits at
# a decode step). Then each row is cut into chunks: softmax_chunk_stats_kernel writes each chunk's
# maximum and sum of exp(x - maximum), softmax_chunk_finish_kernel combines a row's statistics
# (few: one load) and writes its chunk.


@triton.jit(do_not_specialize=["N", "CHUNK"])
def softmax_chunk_stats_kernel(x_ptr, stats_ptr, N, CHUNK, BLOCK_N: tl.constexpr):
    """Program (row, chunk): stats[row, chunk] = (maximum, sum of exp(x - maximum)) over the chunk,
    in the statistics' type (float32, or float64 where the input or the output is double)."""
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    chunks = tl.num_programs(1)
    COMPUTE: tl.constexpr = stats_ptr.dtype.element_ty
    cols = tl.arange(0, BLOCK_N)
    start = chunk * CHUNK
    end = tl.minimum(start + CHUNK, N)
    m = tl.full([BLOCK_N], float("-inf"), COMPUTE)
    s = tl.zeros([BLOCK_N], COMPUTE)
    for n0 in range(start, end, BLOCK_N):
        x = tl.load(x_ptr + row * N + n0 + cols, mask=n0 + cols < end, other=float("-inf")).to(COMPUTE)
        m, s = _online(x, m, s)
    chunk_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - chunk_max)), axis=0)
    slot = (row * chunks + chunk) * 2
    tl.store(stats_ptr + slot, chunk_max)
    tl.store(stats_ptr + slot + 1, total)


@triton.jit(do_not_specialize=["N", "CHUNK"])
def softmax_chunk_finish_kernel(x_ptr, out_ptr, stats_ptr, N, CHUNK, LOG: tl.constexpr, BLOCK_N: tl.constexpr,
                                CHUNKS_PAD: tl.constexpr):
    """Program (row, chunk): the row's maximum and sum from every chunk's statistics, then the
    chunk's softmax (log_softmax with LOG)."""
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    chunks = tl.num_programs(1)
    COMPUTE: tl.constexpr = stats_ptr.dtype.element_ty
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    c = tl.arange(0, CHUNKS_PAD)
    stats = stats_ptr + row * chunks * 2 + c * 2
    m = tl.load(stats, mask=c < chunks, other=float("-inf"))
    s = tl.load(stats + 1, mask=c < chunks, other=0.0)
    row_max = tl.max(m, axis=0)
    total = tl.sum(tl.where(m == float("-inf"), 0.0, s * tl.exp(m - row_max)), axis=0)
    cols = tl.arange(0, BLOCK_N)
    start = chunk * CHUNK
    end = tl.minimum(start + CHUNK, N)
    for n0 in range(start, end, BLOCK_N):
        mask = n0 + cols < end
        x = tl.load(x_ptr + row * N + n0 + cols, mask=mask, other=float("-inf")).to(COMPUTE)
        tl.store(out_ptr + row * N + n0 + cols, _finish(x, row_max, total, LOG).to(OUT), mask=mask)
