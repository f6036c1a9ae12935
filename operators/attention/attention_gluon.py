"""Hopper (sm_90) prefill attention in Gluon, FlashAttention-3's structure: the semantics of
attention.py's prefill_kernel (flash-attn's varlen layout: q [total_q, heads, D], k and v
[total_k, kv_heads, D], cu_seqlens_q and cu_seqlens_k int32 [batch + 1]; query head h reads KV
head h // GROUP; causal masks aligned to the bottom right, query i of a sequence seeing keys
j <= i + k_len - q_len; a query that sees no key is zero; softmax in base 2 with the scale folded
with log2(e); fp32 accumulation), with the data movement and the matrix products of Hopper.

One program per (block of BLOCK_M queries, query head, sequence), as prefill_kernel's grid. Q, K
and V are seen as 2-D tensors [tokens, heads * D] (their token strides as given, D contiguous);
a block of keys of KV head g is the box at (first row, g * D). The tensor maps are made on the
device from pointers and strides, so the C++ caller passes what it passes to prefill_kernel
(and a global scratch for the maps, as Triton's launcher allocates one). Each program is
warp-specialized:

- a producer partition of one warp (few registers) loads the query tile once, then the key and
  value tiles of its sequence with TMA into a ring of NUM_STAGES shared-memory stages; the keys
  and the values of a stage have their own `ready` mbarrier (the product with the keys need not
  wait for the values), and one `empty` mbarrier says the consumers are done with both. Rows past
  the sequence's end belong to the next sequence (or are TMA's zeros past the tensor's end): their
  scores are masked, and their values are multiplied by p = 0;
- the default partition (num_warps = 8: two warpgroups of 64 query rows each) computes
  S = Q K^T with asynchronous wgmma (Q and K from shared memory, K^T as a permuted view), the
  online softmax in registers (exp2, running maximum and sum), and O += P V with P, converted to
  the input's type, as wgmma's register operand. Its loop overlaps as FlashAttention-3's
  intra-warpgroup pipelining does: the product S_j = Q K_j^T and O += P_{j-1} V_{j-1} are issued
  back to back, the softmax of S_j runs while the second is in flight, and stage j-1 goes back to
  the producer once that product has completed. Stages are derived from the block's number (no
  carried stage index: see matmul_gluon.py on the ring that deadlocked).

Causal programs visit keys only up to their last row's diagonal; blocks wholly below the diagonal
and inside the sequence run without masks, the others (at the diagonal, at the sequence's end)
with them. The output O / l is written through the query tile's shared memory (free once the last
S is computed) and masked pointer stores of the rows inside the sequence: a TMA store would write
the next sequence's rows of a varlen batch.

attention_fwd_pingpong_kernel is the same program with its two warpgroups as two consumer
partitions of 4 warps, each on its own 64-row half of the query block (its own query tile): they
share the producer's stages (an `empty` barrier counts both releases) and synchronize only within
themselves, so one warpgroup's softmax can overlap the other's products, as FlashAttention-3's
ping-pong schedule intends (without its explicit ordering: Gluon 3.6 exposes no named barriers).
In attention_fwd_kernel the two warpgroups are one partition, whose barriers (each stage's
release, the compiler's) hold them in step.

attention_fwd_persistent_kernel is the ping-pong program made persistent, for batches of short
sequences: one program per SM walks the (query block, head, sequence) tiles, its producer loading
the next tile's query block and keys while the consumers finish this one. A tile of 128 queries
over 256 keys has two key blocks to hide a program's fixed costs behind (its tensor maps, the
query tile's load, filling the ring, the output's store); here they are paid once a program, and
the loads of one tile overlap the last products and the store of the one before. Its query tiles
are double-buffered (a buffer goes back to the producer once the output written through it has
been read out), which leaves two stages of 128 keys at head dim 128; head dim 256 does not fit.

attention_fwd_ordered_kernel and attention_fwd_persistent_ordered_kernel are those two with their
warpgroups' products issued in turn (FlashAttention-3's ping-pong schedule, which orders them by
named barriers; here two mbarriers pass the turn, see _take_turn), so that one warpgroup's softmax
runs under the other's products instead of drifting into step with it.

launch_config() gives the block sizes, stages and warps per head dim; the C++ op and the
benchmarks mirror it. Each program makes three tensor maps in Triton's global scratch
(metadata.global_scratch_size bytes a program; Triton's launcher takes it from the allocator of
triton.set_allocator). Needs a Triton with Gluon (3.5 or newer) and sm_90.
"""
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma, warpgroup_mma, warpgroup_mma_wait

from gluon_layouts import nvmma_layout, wgmma_layout

# The producer warp's register budget (setmaxnreg); the consumers get the rest of the file.
PRODUCER_REGS = gl.constexpr(40)
# The second consumer partition's of attention_fwd_pingpong_kernel; Triton gives the default
# partition what is left of the file, 232 as well.
PINGPONG_CONSUMER_REGS = gl.constexpr(232)


def launch_config(head_dim, dtype_bytes, causal, max_seqlen_q, pingpong=False, persistent=False):
    """BLOCK_M, BLOCK_N, NUM_STAGES and num_warps for attention_fwd_kernel (or, pingpong, for
    attention_fwd_pingpong_kernel: the same blocks, half the warps; persistent, for
    attention_fwd_persistent_kernel, whose grid is one program per SM at most). Otherwise the grid
    is (cdiv(max_seqlen_q, BLOCK_M), heads, batch). Shared memory: the query block (two of them,
    persistent) and NUM_STAGES stages of a key and a value tile, at most 227 KB on sm_90. causal
    and max_seqlen_q do not change the choice today (kept so that callers need not change when
    they do)."""
    del causal, max_seqlen_q
    assert head_dim in (64, 128, 256), head_dim
    assert dtype_bytes == 2, dtype_bytes
    if persistent:
        assert head_dim in (64, 128), "the persistent kernel's two query tiles leave no room for head dim 256"
        stages = 4 if head_dim == 64 else 2  # 32 + 4 * 32 KB; 64 + 2 * 64 KB
        return dict(BLOCK_M=128, BLOCK_N=128, NUM_STAGES=stages, num_warps=4)
    if head_dim == 64:
        block_m, block_n, stages = 128, 128, 3  # 16 + 3 * 32 KB
    elif head_dim == 128:
        # 32 + 3 * 64 KB; measured on the H200 (measurements/gluon/2026-12-04-attention-sweep.txt):
        # 1.00x SDPA's default at 16k where two stages took 1.06x, 1.09x at 1k (1.12x).
        block_m, block_n, stages = 128, 128, 3
    else:
        block_m, block_n, stages = 128, 64, 2  # 64 + 2 * 64 KB
    return dict(BLOCK_M=block_m, BLOCK_N=block_n, NUM_STAGES=stages, num_warps=block_m // (32 if pingpong else 16))


@gluon.constexpr_function
def store_layout(head_dim, num_warps):
    """A blocked layout whose threads write 16 bytes each, rows of head_dim along the lanes."""
    lanes = min(head_dim // 8, 32)
    return gl.BlockedLayout(size_per_thread=[1, 8], threads_per_warp=[32 // lanes, lanes],
                            warps_per_cta=[num_warps, 1], order=[1, 0])


@gluon.jit
def _tile(CAUSAL: gl.constexpr):
    """This program's (query block, query head, sequence). Causal, the grid's first two axes are
    walked heads fastest and the last query blocks first: a causal block's work grows with its
    index, so the longest start first and the short ones fill the tail of the last wave (0.79x the
    time at 1k tokens, 0.89x at 2k, 0.94x at 4k on an H100). Not causal, every block's work is
    the same and the grid's own order was 1-3 % faster."""
    if CAUSAL:
        blocks = gl.num_programs(0)
        heads = gl.num_programs(1)
        linear = gl.program_id(1) * blocks + gl.program_id(0)
        return blocks - 1 - linear // heads, linear % heads, gl.program_id(2)
    else:
        return gl.program_id(0), gl.program_id(1), gl.program_id(2)


@gluon.jit
def _tile_at(t, blocks, heads, batch, CAUSAL: gl.constexpr):
    """Tile t of the persistent walk: (query block, query head, sequence). Causal, the last query
    blocks of every sequence come first (the longest work first, as in _tile); not causal, a
    sequence's tiles are neighbours, heads fastest, so the query heads of one KV head (and then
    the next query block) read its keys and values while they are in L2."""
    if CAUSAL:
        per_block = heads * batch
        rest = t % per_block
        return blocks - 1 - t // per_block, rest % heads, rest // heads
    else:
        per_seq = heads * blocks
        rest = t % per_seq
        return rest // heads, rest % heads, t // per_seq


@gluon.jit
def _bounds(cu_q_ptr, cu_k_ptr, block, seq, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr):
    """A tile's sequence: its first query and key rows, lengths, the number of key blocks the
    tile visits, and how many of those (the first) need no mask."""
    m0 = block * BLOCK_M
    q_row0 = gl.load(cu_q_ptr + seq)
    q_len = gl.load(cu_q_ptr + seq + 1) - q_row0
    k_row0 = gl.load(cu_k_ptr + seq)
    k_len = gl.load(cu_k_ptr + seq + 1) - k_row0
    if CAUSAL:
        # Keys up to the last row's diagonal (rows past the sequence's end need none); the
        # first row sees every key before m0 + 1 + k_len - q_len.
        last = gl.minimum(m0 + BLOCK_M, q_len)
        hi = gl.minimum(k_len, gl.maximum(last + k_len - q_len, 0))
        whole = gl.minimum(k_len, gl.maximum(m0 + 1 + k_len - q_len, 0))
    else:
        hi = k_len
        whole = k_len
    return q_row0, q_len, k_row0, k_len, whole // BLOCK_N, gl.cdiv(hi, BLOCK_N)


@gluon.jit
def _descriptors(q_ptr, k_ptr, v_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k, heads, GROUP: gl.constexpr,
                 HEAD_DIM: gl.constexpr, Q_ROWS: gl.constexpr, BLOCK_N: gl.constexpr):
    """Tensor maps of q, k and v seen as [tokens, heads * HEAD_DIM]. The warp that issues a TMA
    makes its tensor map: one written by other warps would need their proxy fences to reach it."""
    dtype: gl.constexpr = q_ptr.dtype.element_ty
    q_desc = tma.make_tensor_descriptor(q_ptr, [total_q, heads * HEAD_DIM], [stride_qt, 1], [Q_ROWS, HEAD_DIM],
                                        nvmma_layout([Q_ROWS, HEAD_DIM], dtype))
    k_desc = tma.make_tensor_descriptor(k_ptr, [total_k, (heads // GROUP) * HEAD_DIM], [stride_kt, 1],
                                        [BLOCK_N, HEAD_DIM], nvmma_layout([BLOCK_N, HEAD_DIM], dtype))
    v_desc = tma.make_tensor_descriptor(v_ptr, [total_k, (heads // GROUP) * HEAD_DIM], [stride_vt, 1],
                                        [BLOCK_N, HEAD_DIM], nvmma_layout([BLOCK_N, HEAD_DIM], dtype))
    return q_desc, k_desc, v_desc


@gluon.jit
def _load_tile(q_desc, k_desc, v_desc, q_lo, q_hi, q_bar, k_bufs, v_bufs, k_ready, v_ready, empty, q_row, q_col,
               k_row0, kv_col, n_blocks, base, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr,
               SPLIT_Q: gl.constexpr):
    """One tile: its query block (in two halves, q_lo and q_hi, when SPLIT_Q, else all in q_lo),
    then the n_blocks key and value blocks its consumers visit, in order, into the ring; the
    first goes where the ring's block `base` goes (base: the blocks this program loaded before)."""
    if SPLIT_Q:
        mbarrier.expect(q_bar, 2 * q_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(q_desc, [q_row, q_col], q_bar, q_lo)
        tma.async_copy_global_to_shared(q_desc, [q_row + q_desc.block_type.shape[0], q_col], q_bar, q_hi)
    else:
        mbarrier.expect(q_bar, q_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(q_desc, [q_row, q_col], q_bar, q_lo)
    for j in range(n_blocks):
        g = base + j
        index = g % NUM_STAGES
        # A fresh stage is free: the first wait of each (parity 1) passes.
        mbarrier.wait(empty.index(index), ((g // NUM_STAGES) & 1) ^ 1)
        row = k_row0 + j * BLOCK_N
        mbarrier.expect(k_ready.index(index), k_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(k_desc, [row, kv_col], k_ready.index(index), k_bufs.index(index))
        mbarrier.expect(v_ready.index(index), v_desc.block_type.nbytes)
        tma.async_copy_global_to_shared(v_desc, [row, kv_col], v_ready.index(index), v_bufs.index(index))


@gluon.jit
def _load_partition(q_ptr, k_ptr, v_ptr, cu_q_ptr, cu_k_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k,
                    q_lo, q_hi, k_bufs, v_bufs, q_ready, k_ready, v_ready, empty, GROUP: gl.constexpr,
                    HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                    NUM_STAGES: gl.constexpr, SPLIT_Q: gl.constexpr):
    """This program's one tile (the grid's)."""
    block, head, seq = _tile(CAUSAL)
    q_row0, q_len, k_row0, k_len, n_full, n_blocks = _bounds(cu_q_ptr, cu_k_ptr, block, seq, BLOCK_M, BLOCK_N, CAUSAL)
    q_desc, k_desc, v_desc = _descriptors(q_ptr, k_ptr, v_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k,
                                          gl.num_programs(1), GROUP, HEAD_DIM, q_lo.shape[1], BLOCK_N)
    _load_tile(q_desc, k_desc, v_desc, q_lo.index(0), q_hi.index(0), q_ready.index(0), k_bufs, v_bufs, k_ready,
               v_ready, empty, q_row0 + block * BLOCK_M, head * HEAD_DIM, k_row0, (head // GROUP) * HEAD_DIM, n_blocks,
               0, BLOCK_N, NUM_STAGES, SPLIT_Q)


@gluon.jit
def _persistent_load_partition(q_ptr, k_ptr, v_ptr, cu_q_ptr, cu_k_ptr, stride_qt, stride_kt, stride_vt, total_q,
                               total_k, heads, batch, q_blocks, q_lo, q_hi, k_bufs, v_bufs, q_ready, q_empty, k_ready,
                               v_ready, empty, GROUP: gl.constexpr, HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr,
                               BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr):
    """Every tile of this program, in the consumers' order, each query block into the query buffer
    of its turn once the consumers have given it back. The counters advance only on tiles with
    queries, as the consumers' do."""
    q_desc, k_desc, v_desc = _descriptors(q_ptr, k_ptr, v_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k,
                                          heads, GROUP, HEAD_DIM, q_lo.shape[1], BLOCK_N)
    base = gl.to_tensor(0)  # key blocks loaded so far
    taken = gl.to_tensor(0)  # tiles loaded so far
    for t in range(gl.program_id(0), q_blocks * heads * batch, gl.num_programs(0)):
        block, head, seq = _tile_at(t, q_blocks, heads, batch, CAUSAL)
        q_row0, q_len, k_row0, k_len, n_full, n_blocks = _bounds(cu_q_ptr, cu_k_ptr, block, seq, BLOCK_M, BLOCK_N,
                                                                 CAUSAL)
        if block * BLOCK_M < q_len:
            buf = taken % 2
            # Both consumers have written out the tile that used this buffer before (a fresh one
            # is free: parity 1 passes).
            mbarrier.wait(q_empty.index(buf), ((taken // 2) & 1) ^ 1)
            _load_tile(q_desc, k_desc, v_desc, q_lo.index(buf), q_hi.index(buf), q_ready.index(buf), k_bufs, v_bufs,
                       k_ready, v_ready, empty, q_row0 + block * BLOCK_M, head * HEAD_DIM, k_row0,
                       (head // GROUP) * HEAD_DIM, n_blocks, base, BLOCK_N, NUM_STAGES, True)
            base += n_blocks
            taken += 1


@gluon.jit
def _softmax(s, m_i, l_i, j, n_full, offs_m, k_len, q_len, scale_log2, BLOCK_N: gl.constexpr,
             CAUSAL: gl.constexpr):
    """Block j's probabilities (unnormalized, against the new running maximum), the new maximum
    and sum, and the factor that rescales what was accumulated before. The maximum is kept in
    the scaled (log2) domain: m = max(s) * scale_log2."""
    if j >= n_full:  # at the diagonal or the sequence's end
        cols: gl.constexpr = gl.SliceLayout(0, s.type.layout)
        offs_n = j * BLOCK_N + gl.arange(0, BLOCK_N, layout=cols)
        keep = gl.expand_dims(offs_n, 0) < k_len
        if CAUSAL:
            keep = keep & (gl.expand_dims(offs_n, 0) <= gl.expand_dims(offs_m, 1) + (k_len - q_len))
        s = gl.where(keep, s, float("-inf"))
    m_new = gl.maximum(m_i, gl.max(s, 1) * scale_log2)
    m_safe = gl.where(m_new == float("-inf"), 0.0, m_new)  # rows that saw no key yet
    p = gl.exp2(s * scale_log2 - gl.expand_dims(m_safe, 1))
    alpha = gl.exp2(m_i - m_safe)
    l_i = l_i * alpha + gl.sum(p, 1)
    return p, m_new, l_i, alpha


@gluon.jit
def _take_turn(turns, step, WHICH: gl.constexpr, ORDERED: gl.constexpr):
    """Ordered: waits until the other warpgroup has issued its products of the step before
    (warpgroup 0's step k follows warpgroup 1's step k - 1; warpgroup 1's step k follows warpgroup
    0's step k). Each warpgroup is at most a step ahead of the other, so parity tells the phases
    apart."""
    if ORDERED:
        if WHICH == 1:
            mbarrier.wait(turns.index(1), step & 1)
        elif step > 0:
            mbarrier.wait(turns.index(0), (step - 1) & 1)


@gluon.jit
def _give_turn(turns, step, WHICH: gl.constexpr, ORDERED: gl.constexpr):
    """Ordered: lets the other warpgroup issue its products; returns the steps taken, this one too."""
    if ORDERED:
        mbarrier.arrive(turns.index(1 - WHICH), count=1)
        step += 1
    return step


@gluon.jit
def _attend(o_ptr, scale_log2, stride_ot, stride_oh, q_smem, k_bufs, v_bufs, k_ready, v_ready, empty, q_row0, q_len,
            k_len, n_full, n_blocks, m0, head, base, HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr,
            BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, turns=0, step=0, WHICH: gl.constexpr = 0,
            ORDERED: gl.constexpr = False):
    """The query rows m0 .. m0 + rows of q_smem of one tile against its n_blocks key blocks, the
    first at the ring's block `base`; every stage read goes back to the producer; the output rows
    inside the sequence are written through q_smem (free once the last scores are computed).
    ORDERED: the two warpgroups (WHICH 0 and 1) issue their products in turn (FlashAttention-3's
    ping-pong), so that one's softmax runs under the other's products; `step` counts the issues
    this warpgroup has made (n_blocks + 1 a tile), returned updated."""
    num_warps: gl.constexpr = gl.num_warps()
    ROWS: gl.constexpr = q_smem.shape[0]
    dtype: gl.constexpr = q_smem.dtype
    s_layout: gl.constexpr = wgmma_layout(ROWS, BLOCK_N, num_warps, dtype.primitive_bitwidth)
    o_layout: gl.constexpr = wgmma_layout(ROWS, HEAD_DIM, num_warps, dtype.primitive_bitwidth)
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout,
                                                 k_width=32 // dtype.primitive_bitwidth)
    s_rows: gl.constexpr = gl.SliceLayout(1, s_layout)
    o_rows: gl.constexpr = gl.SliceLayout(1, o_layout)

    offs_m = m0 + gl.arange(0, ROWS, layout=s_rows)
    m_i = gl.full([ROWS], float("-inf"), gl.float32, layout=s_rows)
    l_i = gl.zeros([ROWS], gl.float32, layout=s_rows)
    acc = gl.zeros([ROWS, HEAD_DIM], gl.float32, layout=o_layout)
    s_init = gl.zeros([ROWS, BLOCK_N], gl.float32, layout=s_layout)
    p = gl.zeros([ROWS, BLOCK_N], dtype, layout=p_layout)

    if n_blocks > 0:  # block 0: its scores and probabilities
        first = base % NUM_STAGES
        mbarrier.wait(k_ready.index(first), (base // NUM_STAGES) & 1)
        _take_turn(turns, step, WHICH, ORDERED)
        s = warpgroup_mma(q_smem, k_bufs.index(first).permute((1, 0)), s_init, use_acc=False, is_async=True)
        step = _give_turn(turns, step, WHICH, ORDERED)
        s = warpgroup_mma_wait(num_outstanding=0, deps=(s, ))
        p32, m_i, l_i, alpha = _softmax(s, m_i, l_i, 0, n_full, offs_m, k_len, q_len, scale_log2, BLOCK_N, CAUSAL)
        p = gl.convert_layout(p32.to(dtype), p_layout)

    for j in range(1, n_blocks):
        # Block j's scores, and block j-1's values into the output, back to back; the scores
        # (issued first) complete first. Stages are derived from the block's number (see
        # matmul_gluon.py on a carried stage that deadlocked).
        g = base + j
        index = g % NUM_STAGES
        mbarrier.wait(k_ready.index(index), (g // NUM_STAGES) & 1)
        _take_turn(turns, step, WHICH, ORDERED)
        s_tok = warpgroup_mma(q_smem, k_bufs.index(index).permute((1, 0)), s_init, use_acc=False, is_async=True)
        before = (g - 1) % NUM_STAGES
        mbarrier.wait(v_ready.index(before), ((g - 1) // NUM_STAGES) & 1)
        o_tok = warpgroup_mma(p, v_bufs.index(before), acc, is_async=True)
        step = _give_turn(turns, step, WHICH, ORDERED)
        s = warpgroup_mma_wait(num_outstanding=1, deps=(s_tok, ))
        p32, m_i, l_i, alpha = _softmax(s, m_i, l_i, j, n_full, offs_m, k_len, q_len, scale_log2, BLOCK_N, CAUSAL)
        acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(o_tok, p))
        # Both products that read stage j-1 have completed: it is the producer's again.
        mbarrier.arrive(empty.index(before), count=1)
        acc = acc * gl.expand_dims(gl.convert_layout(alpha, o_rows), 1)
        p = gl.convert_layout(p32.to(dtype), p_layout)

    if n_blocks > 0:  # the last block's values
        g_last = base + n_blocks - 1
        last = g_last % NUM_STAGES
        mbarrier.wait(v_ready.index(last), (g_last // NUM_STAGES) & 1)
        _take_turn(turns, step, WHICH, ORDERED)
        o_tok = warpgroup_mma(p, v_bufs.index(last), acc, is_async=True)
        step = _give_turn(turns, step, WHICH, ORDERED)
        acc, p = warpgroup_mma_wait(num_outstanding=0, deps=(o_tok, p))
        mbarrier.arrive(empty.index(last), count=1)

    # A query that sees no key (causal, more queries than keys) is zero, as in flash-attn.
    l_o = gl.convert_layout(l_i, o_rows)
    out = gl.where(gl.expand_dims(l_o > 0, 1), acc / gl.expand_dims(gl.where(l_o > 0, l_o, 1.0), 1), 0.0)
    # Through the query tile's shared memory (every product that read it has completed), then
    # 16 bytes a thread, rows inside the sequence only: a TMA store would write the next
    # sequence's rows of a varlen batch.
    q_smem.store(out.to(dtype))
    out_layout: gl.constexpr = store_layout(HEAD_DIM, num_warps)
    o = q_smem.load(out_layout)
    rows = m0 + gl.arange(0, ROWS, layout=gl.SliceLayout(1, out_layout))
    cols = gl.arange(0, HEAD_DIM, layout=gl.SliceLayout(0, out_layout))
    offsets = gl.expand_dims((q_row0 + rows).to(gl.int64) * stride_ot, 1) + gl.expand_dims(cols, 0)
    gl.store(o_ptr + head * stride_oh + offsets, o, mask=gl.expand_dims(rows < q_len, 1))
    return step


@gluon.jit
def _compute_partition(o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, q_bufs, k_bufs, v_bufs, q_ready,
                       k_ready, v_ready, empty, HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr,
                       BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, HALF: gl.constexpr, turns=0,
                       ORDERED: gl.constexpr = False):
    """The rows of q_bufs' one tile: the whole query block, or its half HALF (0 or 1). Either way
    the key blocks are the whole query block's (the producer loads one sequence of stages for all
    consumers, and each must release each stage): a half above the diagonal sees its last blocks
    wholly masked. ORDERED: the halves take turns through `turns` (see _attend)."""
    gl.static_assert(NUM_STAGES >= 2, "a stage is released a block after it is read: one stage would deadlock")
    block, head, seq = _tile(CAUSAL)
    q_row0, q_len, k_row0, k_len, n_full, n_blocks = _bounds(cu_q_ptr, cu_k_ptr, block, seq, BLOCK_M, BLOCK_N, CAUSAL)
    mbarrier.wait(q_ready.index(0), 0)
    _attend(o_ptr, scale_log2, stride_ot, stride_oh, q_bufs.index(0), k_bufs, v_bufs, k_ready, v_ready, empty, q_row0,
            q_len, k_len, n_full, n_blocks, block * BLOCK_M + HALF * q_bufs.shape[1], head, 0, HEAD_DIM, CAUSAL,
            BLOCK_N, NUM_STAGES, turns, gl.to_tensor(0), HALF, ORDERED)


@gluon.jit
def _persistent_compute_partition(o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, heads, batch, q_blocks,
                                  q_bufs, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty,
                                  HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr,
                                  BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr, HALF: gl.constexpr, turns=0,
                                  ORDERED: gl.constexpr = False):
    """_compute_partition over every tile of this program, as the producer walks them."""
    gl.static_assert(NUM_STAGES >= 2, "a stage is released a block after it is read: one stage would deadlock")
    base = gl.to_tensor(0)  # key blocks consumed so far
    taken = gl.to_tensor(0)  # tiles consumed so far
    steps = gl.to_tensor(0)  # products issued in turn so far (ORDERED)
    for t in range(gl.program_id(0), q_blocks * heads * batch, gl.num_programs(0)):
        block, head, seq = _tile_at(t, q_blocks, heads, batch, CAUSAL)
        q_row0, q_len, k_row0, k_len, n_full, n_blocks = _bounds(cu_q_ptr, cu_k_ptr, block, seq, BLOCK_M, BLOCK_N,
                                                                 CAUSAL)
        if block * BLOCK_M < q_len:
            buf = taken % 2
            mbarrier.wait(q_ready.index(buf), (taken // 2) & 1)
            steps = _attend(o_ptr, scale_log2, stride_ot, stride_oh, q_bufs.index(buf), k_bufs, v_bufs, k_ready,
                            v_ready, empty, q_row0, q_len, k_len, n_full, n_blocks,
                            block * BLOCK_M + HALF * q_bufs.shape[1], head, base, HEAD_DIM, CAUSAL, BLOCK_N,
                            NUM_STAGES, turns, steps, HALF, ORDERED)
            # The output has been read out of the buffer (into registers, then stored): the
            # producer may load a later tile's queries there.
            mbarrier.arrive(q_empty.index(buf), count=1)
            base += n_blocks
            taken += 1


@gluon.jit
def _ring(dtype: gl.constexpr, Q_ROWS: gl.constexpr, HEAD_DIM: gl.constexpr, BLOCK_N: gl.constexpr,
          NUM_STAGES: gl.constexpr, CONSUMERS: gl.constexpr, Q_BUFFERS: gl.constexpr):
    """Shared memory: Q_BUFFERS query tiles of Q_ROWS rows per consumer partition, NUM_STAGES
    stages of a key and a value tile, and their barriers. A partition's mbarrier.arrive is one
    arrival (its warps synchronize, then one thread arrives): a stage, or a query buffer, is
    empty once each consumer partition has arrived."""
    q_layout: gl.constexpr = nvmma_layout([Q_ROWS, HEAD_DIM], dtype)
    kv_layout: gl.constexpr = nvmma_layout([BLOCK_N, HEAD_DIM], dtype)
    q_lo = gl.allocate_shared_memory(dtype, [Q_BUFFERS, Q_ROWS, HEAD_DIM], q_layout)
    if CONSUMERS == 2:
        q_hi = gl.allocate_shared_memory(dtype, [Q_BUFFERS, Q_ROWS, HEAD_DIM], q_layout)
    else:
        q_hi = q_lo
    k_bufs = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_N, HEAD_DIM], kv_layout)
    v_bufs = gl.allocate_shared_memory(dtype, [NUM_STAGES, BLOCK_N, HEAD_DIM], kv_layout)
    q_ready = gl.allocate_shared_memory(gl.int64, [Q_BUFFERS, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [Q_BUFFERS, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    empty = gl.allocate_shared_memory(gl.int64, [NUM_STAGES, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(Q_BUFFERS):
        mbarrier.init(q_ready.index(i), count=1)
        mbarrier.init(q_empty.index(i), count=CONSUMERS)
    for i in gl.static_range(NUM_STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(empty.index(i), count=CONSUMERS)
    return q_lo, q_hi, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty


@gluon.jit
def _no_queries(cu_q_ptr, BLOCK_M: gl.constexpr, CAUSAL: gl.constexpr):
    """Whether this program's query block starts past its sequence's end (grids cover the longest)."""
    block, _, seq = _tile(CAUSAL)
    q_start = gl.load(cu_q_ptr + seq)
    return block * BLOCK_M >= gl.load(cu_q_ptr + seq + 1) - q_start


@gluon.jit
def attention_fwd_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_qh, stride_kt,
                         stride_kh, stride_vt, stride_vh, stride_ot, stride_oh, total_q, total_k, GROUP: gl.constexpr,
                         HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                         NUM_STAGES: gl.constexpr):
    """Program (query block, query head, sequence); grid (cdiv(max_seqlen_q, BLOCK_M), heads,
    batch), num_warps = BLOCK_M // 16 (the consumers: 8 for 128 rows; Gluon adds the producer's
    warpgroup). The head stride of q, k and v must be HEAD_DIM (heads dense, as flash-attn's
    layout has them; stride_qh, stride_kh and stride_vh are not read), their last dimension
    contiguous, token strides multiples of 16 bytes; o's strides are free (last dim contiguous)."""
    gl.static_assert(BLOCK_M == 16 * gl.num_warps(), "each consumer warp owns 16 query rows")
    if _no_queries(cu_q_ptr, BLOCK_M, CAUSAL):
        return
    q_bufs, q_same, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty = _ring(
        q_ptr.dtype.element_ty, BLOCK_M, HEAD_DIM, BLOCK_N, NUM_STAGES, 1, 1)
    gl.warp_specialize([
        (_compute_partition, (o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, q_bufs, k_bufs, v_bufs,
                              q_ready, k_ready, v_ready, empty, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES, 0)),
        (_load_partition, (q_ptr, k_ptr, v_ptr, cu_q_ptr, cu_k_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k,
                           q_bufs, q_same, k_bufs, v_bufs, q_ready, k_ready, v_ready, empty, GROUP, HEAD_DIM, CAUSAL,
                           BLOCK_M, BLOCK_N, NUM_STAGES, False)),
    ], [1], [PRODUCER_REGS])


@gluon.jit
def _turns(ORDERED: gl.constexpr):
    """The two warpgroups' turn barriers (warpgroup 0's, then 1's), or nothing."""
    if ORDERED:
        turns = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
        for i in gl.static_range(2):
            mbarrier.init(turns.index(i), count=1)
    else:
        turns = 0
    return turns


@gluon.jit
def _pingpong_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                      stride_ot, stride_oh, total_q, total_k, GROUP: gl.constexpr, HEAD_DIM: gl.constexpr,
                      CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr,
                      ORDERED: gl.constexpr):
    gl.static_assert(BLOCK_M == 32 * gl.num_warps(), "two consumer partitions, each warp owning 16 query rows")
    q_lo, q_hi, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty = _ring(
        q_ptr.dtype.element_ty, BLOCK_M // 2, HEAD_DIM, BLOCK_N, NUM_STAGES, 2, 1)
    turns = _turns(ORDERED)
    gl.warp_specialize([
        (_compute_partition, (o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, q_lo, k_bufs, v_bufs,
                              q_ready, k_ready, v_ready, empty, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES, 0,
                              turns, ORDERED)),
        (_compute_partition, (o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, q_hi, k_bufs, v_bufs,
                              q_ready, k_ready, v_ready, empty, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES, 1,
                              turns, ORDERED)),
        (_load_partition, (q_ptr, k_ptr, v_ptr, cu_q_ptr, cu_k_ptr, stride_qt, stride_kt, stride_vt, total_q, total_k,
                           q_lo, q_hi, k_bufs, v_bufs, q_ready, k_ready, v_ready, empty, GROUP, HEAD_DIM, CAUSAL,
                           BLOCK_M, BLOCK_N, NUM_STAGES, True)),
    ], [4, 1], [PINGPONG_CONSUMER_REGS, PRODUCER_REGS])


@gluon.jit
def attention_fwd_pingpong_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_qh,
                                  stride_kt, stride_kh, stride_vt, stride_vh, stride_ot, stride_oh, total_q, total_k,
                                  GROUP: gl.constexpr, HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr,
                                  BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr):
    """attention_fwd_kernel with its two warpgroups as two consumer partitions of 4 warps, one per
    half of the query block (BLOCK_M // 2 = 64 rows each, num_warps = BLOCK_M // 32 = 4): they
    share the producer's stages (each releases each stage) but synchronize only inside their own
    warpgroup, so one can run its softmax while the other's products are on the tensor cores.
    Same arguments and grid as attention_fwd_kernel."""
    if _no_queries(cu_q_ptr, BLOCK_M, CAUSAL):
        return
    _pingpong_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                      stride_ot, stride_oh, total_q, total_k, GROUP, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES,
                      False)


@gluon.jit
def attention_fwd_ordered_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_qh,
                                 stride_kt, stride_kh, stride_vt, stride_vh, stride_ot, stride_oh, total_q, total_k,
                                 GROUP: gl.constexpr, HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr,
                                 BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr):
    """attention_fwd_pingpong_kernel whose two warpgroups issue their products in turn, ordered by
    two mbarriers (FlashAttention-3 orders them by named barriers, which Gluon 3.6 lacks): while
    one computes its softmax, the tensor cores run the other's products. Same arguments and grid."""
    if _no_queries(cu_q_ptr, BLOCK_M, CAUSAL):
        return
    _pingpong_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                      stride_ot, stride_oh, total_q, total_k, GROUP, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES,
                      True)


@gluon.jit
def _persistent_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                        stride_ot, stride_oh, total_q, total_k, heads, batch, q_blocks, GROUP: gl.constexpr,
                        HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                        NUM_STAGES: gl.constexpr, ORDERED: gl.constexpr):
    gl.static_assert(BLOCK_M == 32 * gl.num_warps(), "two consumer partitions, each warp owning 16 query rows")
    q_lo, q_hi, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty = _ring(
        q_ptr.dtype.element_ty, BLOCK_M // 2, HEAD_DIM, BLOCK_N, NUM_STAGES, 2, 2)
    turns = _turns(ORDERED)
    gl.warp_specialize([
        (_persistent_compute_partition, (o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, heads, batch,
                                         q_blocks, q_lo, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty,
                                         HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES, 0, turns, ORDERED)),
        (_persistent_compute_partition, (o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_ot, stride_oh, heads, batch,
                                         q_blocks, q_hi, k_bufs, v_bufs, q_ready, q_empty, k_ready, v_ready, empty,
                                         HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES, 1, turns, ORDERED)),
        (_persistent_load_partition, (q_ptr, k_ptr, v_ptr, cu_q_ptr, cu_k_ptr, stride_qt, stride_kt, stride_vt, total_q,
                                      total_k, heads, batch, q_blocks, q_lo, q_hi, k_bufs, v_bufs, q_ready, q_empty,
                                      k_ready, v_ready, empty, GROUP, HEAD_DIM, CAUSAL, BLOCK_M, BLOCK_N, NUM_STAGES)),
    ], [4, 1], [PINGPONG_CONSUMER_REGS, PRODUCER_REGS])


@gluon.jit
def attention_fwd_persistent_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_qh,
                                    stride_kt, stride_kh, stride_vt, stride_vh, stride_ot, stride_oh, total_q, total_k,
                                    heads, batch, q_blocks, GROUP: gl.constexpr, HEAD_DIM: gl.constexpr,
                                    CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                                    NUM_STAGES: gl.constexpr):
    """attention_fwd_pingpong_kernel over q_blocks * heads * batch tiles (q_blocks =
    cdiv(max_seqlen_q, BLOCK_M)), grid (min(tiles, SMs),): each program takes every
    gl.num_programs(0)-th tile of _tile_at's walk. Same arguments before heads, the same
    layout requirements; head dims 64 and 128."""
    _persistent_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                        stride_ot, stride_oh, total_q, total_k, heads, batch, q_blocks, GROUP, HEAD_DIM, CAUSAL,
                        BLOCK_M, BLOCK_N, NUM_STAGES, False)


@gluon.jit
def attention_fwd_persistent_ordered_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt,
                                            stride_qh, stride_kt, stride_kh, stride_vt, stride_vh, stride_ot,
                                            stride_oh, total_q, total_k, heads, batch, q_blocks, GROUP: gl.constexpr,
                                            HEAD_DIM: gl.constexpr, CAUSAL: gl.constexpr, BLOCK_M: gl.constexpr,
                                            BLOCK_N: gl.constexpr, NUM_STAGES: gl.constexpr):
    """attention_fwd_persistent_kernel with its warpgroups' products in turn, as
    attention_fwd_ordered_kernel's; the turns run on across a program's tiles."""
    _persistent_program(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2, stride_qt, stride_kt, stride_vt,
                        stride_ot, stride_oh, total_q, total_k, heads, batch, q_blocks, GROUP, HEAD_DIM, CAUSAL,
                        BLOCK_M, BLOCK_N, NUM_STAGES, True)
