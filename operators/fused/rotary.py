"""Rotary position embedding, the way LLMs apply it to queries and keys: x (T, H, D) rows of one
token's heads, cos and sin caches (P, R / 2), a position per token. The first R features of each
head rotate, as halves (GPT-NeoX) or, INTERLEAVED, as pairs (GPT-J); the rest pass through."""
import triton
import triton.language as tl


@triton.jit
def _rotated(src, rows, pos, cos_ptr, sin_ptr, cos_stride, sin_stride, R, head_mask, INTERLEAVED: tl.constexpr,
             BLOCK_D: tl.constexpr):
    """The rotated pairs of the heads at src + rows (float32), with where they go (first, second)
    and which exist (mask): halves of the first R features, or (INTERLEAVED) neighbours."""
    half = tl.arange(0, BLOCK_D)  # index into the rotated pairs, < R / 2
    pair_mask = half < R // 2
    c = tl.load(cos_ptr + pos * cos_stride + half, mask=pair_mask, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + pos * sin_stride + half, mask=pair_mask, other=0.0).to(tl.float32)
    if INTERLEAVED:
        first = 2 * half
        second = 2 * half + 1
    else:
        first = half
        second = half + R // 2
    mask = head_mask[:, None] & pair_mask[None, :]
    x1 = tl.load(src + rows + first[None, :], mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(src + rows + second[None, :], mask=mask, other=0.0).to(tl.float32)
    return x1 * c[None, :] - x2 * s[None, :], x2 * c[None, :] + x1 * s[None, :], first, second, mask


@triton.jit
def _pass_through(src, dst, rows, head_mask, R, D, BLOCK_D: tl.constexpr):
    """The features past R, copied as they are."""
    for d0 in range(R, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        m = head_mask[:, None] & (cols[None, :] < D)
        tl.store(dst + rows + cols[None, :], tl.load(src + rows + cols[None, :], mask=m), mask=m)


@triton.jit(do_not_specialize=["T", "S"])
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, pos_ptr, out_ptr, T, S, H, D, R, cos_stride, sin_stride,
                  HAS_POS: tl.constexpr, INTERLEAVED: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    """Program (token, head-block). Without positions, token t is at position t % S."""
    t = tl.program_id(0).to(tl.int64)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    head_mask = heads < H
    if HAS_POS:
        pos = tl.load(pos_ptr + t).to(tl.int64)
    else:
        pos = t % S
    rows = (t * H + heads)[:, None] * D
    y1, y2, first, second, mask = _rotated(x_ptr, rows, pos, cos_ptr, sin_ptr, cos_stride, sin_stride, R, head_mask,
                                           INTERLEAVED, BLOCK_D)
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    tl.store(out_ptr + rows + first[None, :], y1.to(OUT), mask=mask)
    tl.store(out_ptr + rows + second[None, :], y2.to(OUT), mask=mask)
    _pass_through(x_ptr, out_ptr, rows, head_mask, R, D, BLOCK_D)


@triton.jit(do_not_specialize=["T"])
def rotary_cache_kernel(q_ptr, k_ptr, v_ptr, cos_ptr, sin_ptr, pos_ptr, q_out_ptr, k_out_ptr, key_cache_ptr,
                        value_cache_ptr, slot_ptr, T, H, HKV, D, R, stride_qt, stride_kt, stride_vt, cos_stride,
                        sin_stride, page, stride_kcb, stride_kct, stride_vcb, stride_vct, INTERLEAVED: tl.constexpr,
                        BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr, BLOCK_V: tl.constexpr, GDC: tl.constexpr = False):
    """A decode layer's rotary embedding and KV-cache write in one launch, reading q, k and v where
    the qkv projection left them (rows of stride_*t, heads dense). Program (token, head-block):
    the first cdiv(H, BLOCK_H) blocks rotate query heads into q_out; the others rotate key heads
    into k_out and into key_cache at the token's slot (block * page + offset; a negative slot is
    not written, as vLLM's), and copy the token's values into value_cache."""
    if GDC:  # launched dependent on the kernel before it (common/dependent_launch.h): its writes first
        tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                  dtype=tl.int32, is_pure=False, pack=1)
    t = tl.program_id(0).to(tl.int64)
    block = tl.program_id(1)
    q_blocks = tl.cdiv(H, BLOCK_H)
    is_query = block < q_blocks
    if is_query:
        heads = block * BLOCK_H + tl.arange(0, BLOCK_H)
        n_heads = H
        src = q_ptr + t * stride_qt
        dst = q_out_ptr + t * H * D
    else:
        heads = (block - q_blocks) * BLOCK_H + tl.arange(0, BLOCK_H)
        n_heads = HKV
        src = k_ptr + t * stride_kt
        dst = k_out_ptr + t * HKV * D
    pos = tl.load(pos_ptr + t).to(tl.int64)
    head_mask = heads < n_heads
    rows = heads[:, None] * D
    y1, y2, first, second, mask = _rotated(src, rows, pos, cos_ptr, sin_ptr, cos_stride, sin_stride, R, head_mask,
                                           INTERLEAVED, BLOCK_D)
    OUT: tl.constexpr = q_out_ptr.dtype.element_ty
    y1 = y1.to(OUT)
    y2 = y2.to(OUT)
    tl.store(dst + rows + first[None, :], y1, mask=mask)
    tl.store(dst + rows + second[None, :], y2, mask=mask)
    _pass_through(src, dst, rows, head_mask, R, D, BLOCK_D)
    if not is_query:
        slot = tl.load(slot_ptr + t).to(tl.int64)
        if slot >= 0:
            cache = key_cache_ptr + (slot // page) * stride_kcb + (slot % page) * stride_kct
            tl.store(cache + rows + first[None, :], y1, mask=mask)
            tl.store(cache + rows + second[None, :], y2, mask=mask)
            _pass_through(src, cache, rows, head_mask, R, D, BLOCK_D)
            values = value_cache_ptr + (slot // page) * stride_vcb + (slot % page) * stride_vct
            _pass_through(v_ptr + t * stride_vt, values, rows, head_mask, 0, D, BLOCK_V)
