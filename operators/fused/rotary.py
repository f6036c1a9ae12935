"""Rotary position embedding, the way LLMs apply it to queries and keys: x (T, H, D) rows of one
token's heads, cos and sin caches (P, R / 2), a position per token. The first R features of each
head rotate, as halves (GPT-NeoX) or, INTERLEAVED, as pairs (GPT-J); the rest pass through."""
import triton
import triton.language as tl


@triton.jit(do_not_specialize=["T", "S"])
def rotary_kernel(x_ptr, cos_ptr, sin_ptr, pos_ptr, out_ptr, T, S, H, D, R, cos_stride, sin_stride,
                  HAS_POS: tl.constexpr, INTERLEAVED: tl.constexpr, BLOCK_H: tl.constexpr, BLOCK_D: tl.constexpr):
    """Program (token, head-block). Without positions, token t is at position t % S."""
    t = tl.program_id(0).to(tl.int64)
    heads = tl.program_id(1) * BLOCK_H + tl.arange(0, BLOCK_H)
    half = tl.arange(0, BLOCK_D)  # index into the rotated pairs, < R / 2
    head_mask = heads < H
    if HAS_POS:
        pos = tl.load(pos_ptr + t).to(tl.int64)
    else:
        pos = t % S
    pair_mask = half < R // 2
    c = tl.load(cos_ptr + pos * cos_stride + half, mask=pair_mask, other=0.0).to(tl.float32)
    s = tl.load(sin_ptr + pos * sin_stride + half, mask=pair_mask, other=0.0).to(tl.float32)
    base = (t * H + heads)[:, None] * D
    if INTERLEAVED:
        first = 2 * half
        second = 2 * half + 1
    else:
        first = half
        second = half + R // 2
    mask = head_mask[:, None] & pair_mask[None, :]
    x1 = tl.load(x_ptr + base + first[None, :], mask=mask, other=0.0).to(tl.float32)
    x2 = tl.load(x_ptr + base + second[None, :], mask=mask, other=0.0).to(tl.float32)
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    tl.store(out_ptr + base + first[None, :], (x1 * c[None, :] - x2 * s[None, :]).to(OUT), mask=mask)
    tl.store(out_ptr + base + second[None, :], (x2 * c[None, :] + x1 * s[None, :]).to(OUT), mask=mask)
    # features past R pass through
    for d0 in range(R, D, BLOCK_D):
        cols = d0 + tl.arange(0, BLOCK_D)
        m = head_mask[:, None] & (cols[None, :] < D)
        tl.store(out_ptr + base + cols[None, :], tl.load(x_ptr + base + cols[None, :], mask=m), mask=m)
