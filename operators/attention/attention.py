"""Attention of LLM inference: prefill over variable-length batches (cu_seqlens, flash-attn's
layout [tokens, heads, head_dim]), decode against a paged KV cache (vLLM's flash layout
[blocks, block_size, kv_heads, head_dim] with block tables), and the write of new keys and values
into that cache. Grouped-query attention throughout: query head h reads KV head h // GROUP.

Softmax runs in base 2 (the scale folded with log2(e)) with the running maximum and sum of
flash attention; accumulation is float32."""
import triton
import triton.language as tl


@triton.jit
def _prefill_blocks(acc, m_i, l_i, q, k_ptr, v_ptr, k_row0, kv_head, offs_m, k_len, q_len, lo, hi, scale_log2,
                    stride_kt, stride_kh, stride_vt, stride_vh,
                    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr, MASKED: tl.constexpr,
                    PRECISION: tl.constexpr):
    """Keys [lo, hi) of one sequence; MASKED blocks check the sequence's end and the causal edge,
    the others are whole and below the diagonal."""
    offs_d = tl.arange(0, HEAD_DIM)
    for start_n in range(lo, hi, BLOCK_N):
        offs_n = start_n + tl.arange(0, BLOCK_N)
        rows = (k_row0 + offs_n).to(tl.int64)
        k_ptrs = k_ptr + rows[None, :] * stride_kt + kv_head * stride_kh + offs_d[:, None]
        v_ptrs = v_ptr + rows[:, None] * stride_vt + kv_head * stride_vh + offs_d[None, :]
        if MASKED:
            k = tl.load(k_ptrs, mask=offs_n[None, :] < k_len, other=0.0)
        else:
            k = tl.load(k_ptrs)
        s = tl.dot(q, k, input_precision=PRECISION) * scale_log2
        if MASKED:
            keep = offs_n[None, :] < k_len
            if CAUSAL:
                keep = keep & (offs_n[None, :] <= offs_m[:, None] + (k_len - q_len))
            s = tl.where(keep, s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        m_safe = tl.where(m_new == float("-inf"), 0.0, m_new)  # rows that saw no key yet
        p = tl.math.exp2(s - m_safe[:, None])
        alpha = tl.math.exp2(m_i - m_safe)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        if MASKED:
            v = tl.load(v_ptrs, mask=offs_n[:, None] < k_len, other=0.0)
        else:
            v = tl.load(v_ptrs)
        acc = tl.dot(p.to(v.dtype), v, acc, input_precision=PRECISION)
        m_i = m_new
    return acc, m_i, l_i


@triton.jit
def prefill_kernel(q_ptr, k_ptr, v_ptr, o_ptr, cu_q_ptr, cu_k_ptr, scale_log2,
                   stride_qt, stride_qh, stride_kt, stride_kh, stride_vt, stride_vh, stride_ot, stride_oh,
                   GROUP: tl.constexpr, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr, PRECISION: tl.constexpr,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """Program (query block, query head, sequence). Causal masks align to the bottom right, as
    flash-attn's: query i of a sequence sees keys j <= i + k_len - q_len."""
    start_m = tl.program_id(0)
    head = tl.program_id(1)
    seq = tl.program_id(2)
    q_row0 = tl.load(cu_q_ptr + seq)
    q_len = tl.load(cu_q_ptr + seq + 1) - q_row0
    k_row0 = tl.load(cu_k_ptr + seq)
    k_len = tl.load(cu_k_ptr + seq + 1) - k_row0
    if start_m * BLOCK_M >= q_len:
        return
    kv_head = head // GROUP
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_d = tl.arange(0, HEAD_DIM)
    q_rows = (q_row0 + offs_m).to(tl.int64)
    q = tl.load(q_ptr + q_rows[:, None] * stride_qt + head * stride_qh + offs_d[None, :],
                mask=offs_m[:, None] < q_len, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    if CAUSAL:
        hi = tl.minimum(k_len, tl.maximum((start_m + 1) * BLOCK_M + k_len - q_len, 0))
        whole = tl.minimum(k_len, tl.maximum(start_m * BLOCK_M + k_len - q_len, 0))
    else:
        hi = k_len
        whole = k_len
    whole = (whole // BLOCK_N) * BLOCK_N
    acc, m_i, l_i = _prefill_blocks(acc, m_i, l_i, q, k_ptr, v_ptr, k_row0, kv_head, offs_m, k_len, q_len, 0, whole,
                                    scale_log2, stride_kt, stride_kh, stride_vt, stride_vh,
                                    HEAD_DIM, BLOCK_N, CAUSAL, False, PRECISION)
    acc, m_i, l_i = _prefill_blocks(acc, m_i, l_i, q, k_ptr, v_ptr, k_row0, kv_head, offs_m, k_len, q_len, whole, hi,
                                    scale_log2, stride_kt, stride_kh, stride_vt, stride_vh,
                                    HEAD_DIM, BLOCK_N, CAUSAL, True, PRECISION)
    # a query that sees no key (causal, more queries than keys) is zero, as in flash-attn
    out = tl.where(l_i[:, None] > 0, acc / tl.where(l_i > 0, l_i, 1.0)[:, None], 0.0)
    tl.store(o_ptr + q_rows[:, None] * stride_ot + head * stride_oh + offs_d[None, :],
             out.to(o_ptr.dtype.element_ty), mask=offs_m[:, None] < q_len)


@triton.jit
def paged_decode_kernel(q_ptr, k_cache_ptr, v_cache_ptr, block_tables_ptr, seq_lens_ptr, o_ptr,
                        part_m_ptr, part_l_ptr, part_acc_ptr, scale_log2, partitions,
                        stride_qb, stride_qh, stride_kb, stride_kt, stride_kh, stride_vb, stride_vt, stride_vh,
                        stride_table, stride_ob, stride_oh,
                        PAGE: tl.constexpr, GROUP: tl.constexpr, GROUP_PAD: tl.constexpr, HEAD_DIM: tl.constexpr,
                        PARTITION: tl.constexpr, BLOCK_N: tl.constexpr, SPLIT: tl.constexpr,
                        PRECISION: tl.constexpr, GDC: tl.constexpr = False):
    """Program (sequence, KV head, partition of PARTITION tokens): the GROUP query heads of one KV
    head together (a dot of at least 16 rows). SPLIT writes the partition's running maximum, sum
    and unnormalised output for paged_reduce_kernel; otherwise the output itself."""
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    seq = tl.program_id(0)
    kv_head = tl.program_id(1)
    part = tl.program_id(2)
    seq_len = tl.load(seq_lens_ptr + seq)
    start = part * PARTITION
    g = tl.arange(0, GROUP_PAD)
    heads = kv_head * GROUP + g
    head_mask = g < GROUP
    offs_d = tl.arange(0, HEAD_DIM)
    if start >= seq_len:
        if not SPLIT:  # an empty sequence: zeros, as a softmax over nothing
            tl.store(o_ptr + seq * stride_ob + heads[:, None] * stride_oh + offs_d[None, :],
                     tl.zeros([GROUP_PAD, HEAD_DIM], o_ptr.dtype.element_ty), mask=head_mask[:, None])
        return
    q = tl.load(q_ptr + seq * stride_qb + heads[:, None] * stride_qh + offs_d[None, :], mask=head_mask[:, None],
                other=0.0)
    m_i = tl.full([GROUP_PAD], float("-inf"), tl.float32)
    l_i = tl.zeros([GROUP_PAD], tl.float32)
    acc = tl.zeros([GROUP_PAD, HEAD_DIM], tl.float32)
    end = tl.minimum(seq_len, start + PARTITION)
    table = block_tables_ptr + seq.to(tl.int64) * stride_table
    for n0 in range(start, end, BLOCK_N):
        tok = n0 + tl.arange(0, BLOCK_N)
        live = tok < end
        page = tl.load(table + tok // PAGE, mask=live, other=0).to(tl.int64)
        k_rows = page * stride_kb + (tok % PAGE) * stride_kt + kv_head * stride_kh
        v_rows = page * stride_vb + (tok % PAGE) * stride_vt + kv_head * stride_vh
        k = tl.load(k_cache_ptr + k_rows[None, :] + offs_d[:, None], mask=live[None, :], other=0.0)
        s = tl.dot(q, k, input_precision=PRECISION) * scale_log2
        s = tl.where(live[None, :], s, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        p = tl.math.exp2(s - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = tl.load(v_cache_ptr + v_rows[:, None] + offs_d[None, :], mask=live[:, None], other=0.0)
        acc = tl.dot(p.to(v.dtype), v, acc * alpha[:, None], input_precision=PRECISION)
        m_i = m_new
    if SPLIT:
        slot = (seq * (tl.num_programs(1) * GROUP) + heads).to(tl.int64) * partitions + part
        tl.store(part_m_ptr + slot, m_i, mask=head_mask)
        tl.store(part_l_ptr + slot, l_i, mask=head_mask)
        tl.store(part_acc_ptr + slot[:, None] * HEAD_DIM + offs_d[None, :], acc, mask=head_mask[:, None])
    else:
        tl.store(o_ptr + seq * stride_ob + heads[:, None] * stride_oh + offs_d[None, :],
                 (acc / l_i[:, None]).to(o_ptr.dtype.element_ty), mask=head_mask[:, None])


@triton.jit
def paged_reduce_kernel(seq_lens_ptr, o_ptr, part_m_ptr, part_l_ptr, part_acc_ptr, partitions, stride_ob, stride_oh,
                        HEAD_DIM: tl.constexpr, PARTITION: tl.constexpr, BLOCK_P: tl.constexpr,
                        GDC: tl.constexpr = False):
    """Program (sequence, query head): the partitions' results weighed by their maxima, BLOCK_P
    partitions at a time."""
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    seq = tl.program_id(0)
    head = tl.program_id(1)
    seq_len = tl.load(seq_lens_ptr + seq)
    used = tl.cdiv(seq_len, PARTITION)
    offs_d = tl.arange(0, HEAD_DIM)
    base = (seq * tl.num_programs(1) + head).to(tl.int64) * partitions
    top = float("-inf")
    total = 0.0
    out = tl.zeros([HEAD_DIM], tl.float32)
    for p0 in range(0, used, BLOCK_P):
        offs_p = p0 + tl.arange(0, BLOCK_P)
        live = offs_p < used
        m = tl.load(part_m_ptr + base + offs_p, mask=live, other=float("-inf"))
        l = tl.load(part_l_ptr + base + offs_p, mask=live, other=0.0)
        acc = tl.load(part_acc_ptr + (base + offs_p)[:, None] * HEAD_DIM + offs_d[None, :], mask=live[:, None],
                      other=0.0)
        new_top = tl.maximum(top, tl.max(m, 0))
        rescale = tl.math.exp2(top - new_top)
        w = tl.where(live, tl.math.exp2(m - new_top), 0.0)
        total = total * rescale + tl.sum(w * l, 0)
        out = out * rescale + tl.sum(w[:, None] * acc, 0)
        top = new_top
    out = out / tl.where(total > 0, total, 1.0)
    tl.store(o_ptr + seq * stride_ob + head * stride_oh + offs_d, out.to(o_ptr.dtype.element_ty))


@triton.jit
def reshape_and_cache_kernel(key_ptr, value_ptr, key_cache_ptr, value_cache_ptr, slot_ptr, page,
                             stride_kt, stride_vt, stride_kcb, stride_kct, stride_vcb, stride_vct, width,
                             BLOCK: tl.constexpr):
    """Program (token, chunk of its KV heads x head_dim): into slot = block * block_size + offset;
    a negative slot (padding) is skipped, as vLLM's."""
    t = tl.program_id(0).to(tl.int64)
    slot = tl.load(slot_ptr + t).to(tl.int64)
    if slot < 0:
        return
    block = slot // page
    offset = slot % page
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    m = cols < width
    tl.store(key_cache_ptr + block * stride_kcb + offset * stride_kct + cols,
             tl.load(key_ptr + t * stride_kt + cols, mask=m), mask=m)
    tl.store(value_cache_ptr + block * stride_vcb + offset * stride_vct + cols,
             tl.load(value_ptr + t * stride_vt + cols, mask=m), mask=m)


@triton.jit
def advance_step_kernel(tokens_ptr, sampled_ptr, positions_ptr, seq_lens_ptr, slot_ptr, tables_ptr, N, page,
                        stride_sampled, stride_table, BLOCK: tl.constexpr, GDC: tl.constexpr = False):
    """A decode step's inputs for the next step, as vLLM's advance_step: the sampled token is the
    next input, a sequence's length is its next position (and grows by one), and the next slot is
    that position's page of the block table."""
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = i < N
    sampled = tl.load(sampled_ptr + i * stride_sampled, mask=live)
    tl.store(tokens_ptr + i, sampled.to(tokens_ptr.dtype.element_ty), mask=live)
    position = tl.load(seq_lens_ptr + i, mask=live, other=0).to(tl.int64)
    tl.store(positions_ptr + i, position.to(positions_ptr.dtype.element_ty), mask=live)
    tl.store(seq_lens_ptr + i, (position + 1).to(seq_lens_ptr.dtype.element_ty), mask=live)
    block = tl.load(tables_ptr + i.to(tl.int64) * stride_table + position // page, mask=live, other=0).to(tl.int64)
    tl.store(slot_ptr + i, (block * page + position % page).to(slot_ptr.dtype.element_ty), mask=live)
