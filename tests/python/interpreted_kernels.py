"""The operator library's LLM-shaped kernels run by Triton's interpreter on CPU tensors, against
torch: the decode-step matmul, the persistent TMA matmul (descriptors included), the radix-select
top-k, the chunked softmax and the lean row reductions. Run by test_llm_kernels.py in a process
with TRITON_INTERPRET=1 (Triton reads it when the kernels are decorated). The interpreter has no
bfloat16, so the 16-bit cases are float16. Prints one line per check and exits non-zero on a miss."""
import importlib.util
import itertools
import os
import sys

import torch
import triton
from triton.tools.tensor_descriptor import TensorDescriptor

OPERATORS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "operators")
failures = []


def module(relative):
    spec = importlib.util.spec_from_file_location(os.path.basename(relative)[:-3], os.path.join(OPERATORS, relative))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def undecorated(kernel):
    while type(kernel).__name__ in ("Autotuner", "Heuristics"):
        kernel = kernel.fn
    return kernel


def check(label, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {label} {detail}", flush=True)
    if not ok:
        failures.append(label)


def relative_error(out, ref):
    return ((out.float() - ref.float()).norm() / ref.float().norm()).item()


def matmuls():
    skinny = undecorated(module("matmul/matmul_skinny.py").matmul_skinny_kernel)
    tma = undecorated(module("matmul/matmul_tma.py").matmul_tma_kernel)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8))
    for m, n, k, k_major, bias_on in ((1, 40, 96, True, False), (5, 64, 256, True, True), (17, 33, 80, False, True)):
        a = torch.randn(m, k).half()
        w = torch.randn(n, k).half()
        b = w.t() if k_major else w.t().contiguous()
        bias = torch.randn(n).half().expand(m, n)
        c = torch.empty(m, n, dtype=torch.float16)
        block_k = 64
        skinny[(triton.cdiv(n, 16), 1)](a, b, c, bias, m, n, k, 0, a.stride(0), a.stride(1), 0, b.stride(0), b.stride(1),
                                        0, c.stride(0), c.stride(1), 0, bias.stride(0), bias.stride(1), 0.5, 2.0, 0,
                                        HAS_BIAS=bias_on, BLOCK_M=max(16, triton.next_power_of_2(m)), BLOCK_N=16,
                                        BLOCK_K=block_k, EVEN_K=k % block_k == 0, INDEX64=False)
        ref = 0.5 * (a.float() @ b.float()) + (2.0 * bias.float() if bias_on else 0)
        err = relative_error(c, ref)
        check(f"matmul_skinny {m}x{k}x{n} k_major={k_major} bias={bias_on}", err < 2e-3, f"error {err:.1e}")
    for batch, m, n, k, k_major, subtile, bias_on in ((1, 100, 72, 96, True, False, True), (3, 70, 64, 64, False, True,
                                                                                             False)):
        a = torch.randn(batch, m, k).half()
        w = torch.randn(batch, n, k).half()
        b = w.transpose(1, 2) if k_major else w.transpose(1, 2).contiguous()
        bias = torch.randn(n).half().expand(batch, m, n)
        c = torch.zeros(batch, m, n, dtype=torch.float16)
        tiles = batch * triton.cdiv(m, 64) * triton.cdiv(n, 64)
        tma[(min(3, tiles),)](a, b, c, bias, m, n, k, batch, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                              b.stride(2), c.stride(0), c.stride(1), bias.stride(0), bias.stride(1), bias.stride(2), 0.5,
                              2.0, 128, HAS_BIAS=bias_on, B_KMAJOR=k_major, NUM_SMS=3, BLOCK_M=64, BLOCK_N=64,
                              BLOCK_K=32, GROUP_M=8, EPILOGUE_SUBTILE=subtile)
        ref = 0.5 * (a.float() @ b.float()) + (2.0 * bias.float() if bias_on else 0)
        err = relative_error(c, ref)
        check(f"matmul_tma {batch}x{m}x{k}x{n} k_major={k_major} subtile={subtile}", err < 2e-3, f"error {err:.1e}")
    wave = undecorated(module("matmul/matmul_wave.py").matmul_wave_kernel)
    # N not a multiple of the tile's width and K not of BLOCK_K: the last tile's pieces read zeros
    # past the edges and store nothing there; 150 rows make a partial token block.
    for m, n, k, pieces, bias_on in ((150, 200, 96, (64, 32, 0), True), (40, 120, 64, (32, 16, 8), False),
                                     (64, 64, 128, (64, 0, 0), True)):
        a = torch.randn(m, k).half()
        w = torch.randn(n, k).half()
        b = w.t()
        bias = torch.randn(n).half().expand(m, n)
        # C is a view with 8 columns of padding to its right, which no store may reach
        padded = torch.full((m, n + 8), 7.0, dtype=torch.float16)
        c = padded[:, :n]
        programs = triton.cdiv(m, 64) * triton.cdiv(n, sum(pieces))
        a_desc = TensorDescriptor.from_tensor(a, [64, 64])
        b_descs = [TensorDescriptor.from_tensor(w, [p or 64, 64]) for p in pieces]
        wave[(programs,)](a_desc, *b_descs, c, bias, m, n, k, c.stride(0), bias.stride(0), bias.stride(1), 0.5, 2.0, 256,
                          HAS_BIAS=bias_on, NUM_SMS=132, BLOCK_M=64, BLOCK_N0=pieces[0], BLOCK_N1=pieces[1],
                          BLOCK_N2=pieces[2], BLOCK_K=64)
        ref = 0.5 * (a.float() @ b.float()) + (2.0 * bias.float() if bias_on else 0)
        err = relative_error(c, ref)
        untouched = bool((padded[:, n:] == 7.0).all())
        check(f"matmul_wave {m}x{k}x{n} pieces={pieces} bias={bias_on}", err < 2e-3 and untouched,
              f"error {err:.1e}, padding {'untouched' if untouched else 'written'}")


def topk_rows(x, k, largest, chunk, final_max, radix_bits, groups=0, out=None, count=None, only_over=0):
    """The rounds topk.cpp's run_topk_radix makes, at a smaller scale; with groups, chunks bound
    their K-th key by group maxima and keep up to 2 * K_PAD candidates. Also returns how many
    candidates the first round kept (more than k a chunk only where the bound was used). With
    only_over, the fallback of the whole-row bound: only rows whose count passed it, into out."""
    tk = module("topk/topk.py")
    rows, n = x.shape
    slots = 2 * triton.next_power_of_2(k) if groups else k
    keys, positions, partial, first_kept = x, None, False, None
    while n > final_max:
        chunks = triton.cdiv(n, chunk)
        next_keys = torch.empty(rows, chunks * slots, dtype=torch.int32)
        next_positions = torch.empty(rows, chunks * slots, dtype=torch.int32)
        tk.topk_radix_kernel[(rows, chunks)](keys, positions if partial else next_positions, next_keys, next_positions,
                                             n, k, LARGEST=largest, PARTIAL_IN=partial, BLOCK=chunk,
                                             K_PAD=triton.next_power_of_2(k), RADIX_BITS=radix_bits, GROUPS=groups,
                                             SLOTS=slots if groups else 0, count_ptr=count, ONLY_OVER=only_over)
        if first_kept is None:
            first_kept = (next_positions >= 0).sum().item()
        keys, positions, partial, n = next_keys, next_positions, True, chunks * slots
    values, indices = out or (torch.empty(rows, k, dtype=x.dtype), torch.empty(rows, k, dtype=torch.int64))
    tk.topk_sort_kernel[(rows,)](keys, positions if partial else indices, values, indices, n, k, LARGEST=largest,
                                 PARTIAL_IN=partial, BLOCK=triton.next_power_of_2(max(n, k)), count_ptr=count,
                                 ONLY_OVER=only_over)
    return values, indices, first_kept


def topk_row_bound(x, k, largest, group, slots, chunk, pos_bits):
    """topk.cpp's run_topk_row_bound at a smaller scale: the top bits of the k-th largest of the
    row's group maxima, the keys at or above it gathered into `slots` candidates and sorted (as
    the vocabulary's would be with pos_bits = 17); rows whose candidates overflow done by the
    rounds, which skip the others. Returns the rows that did, and those whose 16-bit keys spread
    too far for a 32-bit sort."""
    tk = module("topk/topk.py")
    rows, n = x.shape
    maxima_count = triton.cdiv(n, group)
    maxima = torch.empty(rows, maxima_count, dtype=torch.int32)
    bound, count = torch.empty(rows, dtype=torch.int32), torch.empty(rows, dtype=torch.int32)
    keys, positions = torch.empty(rows, slots, dtype=torch.int32), torch.empty(rows, slots, dtype=torch.int32)
    tk.topk_group_max_kernel[(rows, triton.cdiv(maxima_count, 64))](x, maxima, n, maxima_count, LARGEST=largest,
                                                                    GROUP=group, BLOCK=64)
    tk.topk_row_bound_kernel[(rows,)](maxima, bound, count, maxima_count, k,
                                      BLOCK=triton.next_power_of_2(maxima_count))
    tk.topk_rows_gather_kernel[(rows, triton.cdiv(n, chunk))](x, bound, count, keys, positions, n, slots,
                                                              LARGEST=largest, BLOCK=chunk)
    values, indices = torch.empty(rows, k, dtype=x.dtype), torch.empty(rows, k, dtype=torch.int64)
    key_shift = {torch.bfloat16: 16, torch.float16: 13}.get(x.dtype, 0)
    tk.topk_rows_sort_kernel[(rows,)](keys, positions, count, bound, values, indices, slots, k, pos_bits,
                                      LARGEST=largest, KEY_SHIFT=key_shift, BLOCK=slots)
    wide = []
    if key_shift:
        for r in range(rows):
            if count[r] <= slots:
                high = keys[r, :count[r]].view(torch.uint32).to(torch.int64) >> key_shift
                floor = bound[r:r + 1].view(torch.uint32).to(torch.int64).item() >> key_shift
                if high.max().item() - floor >= 1 << (32 - pos_bits):
                    wide.append(r)
    topk_rows(x, k, largest, chunk=max(64, 4 * triton.next_power_of_2(k)), final_max=max(64, 2 * triton.next_power_of_2(k)),
              radix_bits=5, out=(values, indices), count=count, only_over=slots)
    return values, indices, (count > slots).nonzero().flatten().tolist(), wide


def topk():
    # 5-bit digits are topk.cpp's kTopkRadixBits and the kernel's default (the last digit
    # narrower); 8-bit ones divide every type. Groups: the bound of group maxima, taken where the
    # keys at or above it fit; the rows below check that it is given up where they do not.
    for dtype, (radix_bits, groups) in itertools.product((torch.float32, torch.float16, torch.bfloat16, torch.int32),
                                                         ((5, 64), (5, 0), (8, 0))):
        # the k-th value positive and negative for both directions (a 16-bit float's key skips its
        # low digits, whose value depends on the sign), ties at it, NaN
        for rows, n, k, largest, sign in ((2, 600, 20, True, 1), (2, 600, 30, False, 1), (2, 600, 25, True, -1),
                                          (2, 600, 25, False, -1), (1, 129, 16, True, 0), (3, 500, 60, False, 0),
                                          (2, 3000, 10, True, 1)):
            if dtype == torch.int32:
                x = torch.randint(-5, 5, (rows, n), dtype=dtype)  # many ties at the k-th value
            else:
                x = torch.randn(rows, n).to(dtype)
                if sign:
                    x = x.abs() * sign
                if rows == 3:  # few distinct values: the k-th is one of many equal ones
                    x = (x * 2).round()
                x[:, 100:160] = x[:, 100:101]
                if n > 200 and sign >= 0:
                    x[0, 3] = float("nan")
            chunk = max(256 if groups else 64, 4 * triton.next_power_of_2(k))
            values, indices, first_kept = topk_rows(x, k, largest, chunk=chunk,
                                                    final_max=max(64, 2 * triton.next_power_of_2(k)),
                                                    radix_bits=radix_bits, groups=groups)
            ref_values, _ = torch.topk(x.float(), k, dim=1, largest=largest)
            same = torch.equal(values.float().nan_to_num(1e9), ref_values.nan_to_num(1e9))
            picked = torch.equal(x.gather(1, indices).float().nan_to_num(1e9), values.float().nan_to_num(1e9))
            first = all(not (values[r, j] == values[r, j + 1] and indices[r, j] > indices[r, j + 1])
                        for r in range(rows) for j in range(k - 1))
            name = f"topk radix{radix_bits} groups {groups} {dtype} {rows}x{n} k={k} largest={largest}"
            check(name, same and picked and first, f"values {same}, indices {picked}, ties by first position {first}")
            if groups and n == 3000 and dtype != torch.int32:
                # spread-out values: the bound must have been used, keeping more than k a chunk
                check(f"{name} bound used", first_kept > rows * triton.cdiv(n, chunk) * k,
                      f"{first_kept} candidates after the first round")
    # Every seventh key the row's maximum: each chunk of 256 has more of them at or above its bound
    # than its 32 slots hold, so it must give the bound up and pick exactly k by the digit passes.
    for dtype in (torch.float32, torch.bfloat16, torch.int32):
        rows, n, k, chunk = 2, 2816, 10, 256  # whole chunks: a short last one would fit its slots
        x = (torch.randn(rows, n) * 2).to(dtype) if dtype.is_floating_point else torch.randint(-50, 50, (rows, n))
        x = x.to(dtype)
        x[:, ::7] = 60
        values, indices, first_kept = topk_rows(x, k, True, chunk=chunk, final_max=64, radix_bits=5, groups=64)
        ref_values, _ = torch.topk(x.float(), k, dim=1)
        first = all(indices[r, j] < indices[r, j + 1] for r in range(rows) for j in range(k - 1))
        check(f"topk groups 64 {dtype} {rows}x{n} k={k} the bound given up", torch.equal(values.float(), ref_values)
              and torch.equal(x.gather(1, indices), values) and first
              and first_kept == rows * triton.cdiv(n, chunk) * k,
              f"{first_kept} candidates after the first round, ties by first position {first}")


def topk_whole_row():
    # The whole-row bound: random rows fit their slots; sorted rows (either way) do too, since a
    # group takes every G-th key; rows of ties at the bound (a masked row of -inf, few distinct
    # values) overflow and the rounds do them, beside rows that fit. Positions of 17 bits, as in
    # the vocabulary, leave 15 for a 16-bit key: the k-th value of the shifted row (x[2]) is of
    # the other sign than its best, which spreads a float16's keys too far, so that row sorts
    # 64-bit words.
    torch.manual_seed(0)
    rows, n, k, group, slots, chunk, pos_bits = 4, 4000, 60, 16, 128, 512, 17
    for dtype, largest in itertools.product((torch.float32, torch.float16), (True, False)):
        x = torch.randn(rows, n).to(dtype)
        x[1] = x[1].sort(descending=True).values
        x[2] = (x[2] + (-2.5 if largest else 2.5)).sort().values
        x[3] = float("-inf") if largest else float("inf")
        x[3, 7:3000:97] = torch.randn(31).to(dtype)  # fewer finite values than k
        x[0, 5] = float("nan")
        x[0, 100:110] = x[0].max() if largest else x[0].min()  # ties among the best
        values, indices, overflowed, wide = topk_row_bound(x, k, largest, group, slots, chunk, pos_bits)
        ref_values, _ = torch.topk(x.float(), k, dim=1, largest=largest)
        same = torch.equal(values.float().nan_to_num(1e9), ref_values.nan_to_num(1e9))
        picked = torch.equal(x.gather(1, indices).float().nan_to_num(1e9), values.float().nan_to_num(1e9))
        first = all(not (values[r, j] == values[r, j + 1] and indices[r, j] > indices[r, j + 1])
                    for r in range(rows) for j in range(k - 1))
        # a NaN, the largest key, is as far from the bound as a key gets
        expect_wide = ([0, 2] if largest else [2]) if dtype == torch.float16 else []
        check(f"topk whole-row bound {dtype} {rows}x{n} k={k} largest={largest}",
              same and picked and first and overflowed == [3] and wide == expect_wide,
              f"values {same}, indices {picked}, ties by first position {first}, rows overflowed {overflowed}, "
              f"rows sorted as 64-bit words {wide}")
    # few distinct values: every row overflows
    x = torch.randn(2, n).round()
    values, indices, overflowed, _ = topk_row_bound(x, k, True, group, slots, chunk, pos_bits)
    ref_values, _ = torch.topk(x, k, dim=1)
    check(f"topk whole-row bound, ties at the bound 2x{n} k={k}",
          torch.equal(values, ref_values) and torch.equal(x.gather(1, indices), values) and overflowed == [0, 1],
          f"rows overflowed {overflowed}")


def softmax():
    sm = module("reduction/softmax.py")
    for dtype in (torch.float32, torch.float16):
        for rows, n, chunk, log in ((2, 1000, 256, False), (3, 777, 128, True)):
            x = torch.randn(rows, n).to(dtype)
            x[0, :5] = float("-inf")
            chunks = triton.cdiv(n, chunk)
            stats = torch.empty(rows, chunks, 2, dtype=torch.float32)
            out = torch.empty_like(x)
            sm.softmax_chunk_stats_kernel[(rows, chunks)](x, stats, n, chunk, BLOCK_N=64)
            sm.softmax_chunk_finish_kernel[(rows, chunks)](x, out, stats, n, chunk, LOG=log, BLOCK_N=64,
                                                           CHUNKS_PAD=triton.next_power_of_2(chunks))
            ref = (torch.log_softmax if log else torch.softmax)(x.float(), 1)
            finite = ref.isfinite()
            err = (out.float()[finite] - ref[finite]).abs().max().item()
            tolerance = 1e-5 if dtype == torch.float32 else 5e-3
            check(f"softmax chunks {dtype} {rows}x{n} log={log}",
                  err < tolerance and torch.equal(out.float().isinf(), ref.isinf()), f"error {err:.1e}")


def reductions():
    red = module("reduction/reduce.py")
    for dtype in (torch.float32, torch.float16):
        for op in ("amax", "argmax", "max", "min"):
            rows, n = 3, 700
            x = torch.randn(rows, n).to(dtype)
            x[0, 7] = float("nan")
            x[0, 50] = float("nan")
            x[1, :] = float("-inf") if op != "min" else float("inf")
            x[2, 3] = x[2].max() + 1 if op != "min" else x[2].min() - 1
            x[2, 9] = x[2, 3]
            out = torch.empty(rows, 1, dtype=dtype)
            idx = torch.empty(rows, 1, dtype=torch.int64)
            red.reduce_rows_kernel[(rows, 1)](x, idx, out, idx, rows, n, n, 1.0, OP=op, ACC="fp32", PARTIAL_IN=False,
                                              BLOCK_M=1, BLOCK_N=128, INDEX64=False)
            ref_values = x.float().amax(1) if op == "amax" else (x.float().min(1) if op == "min" else x.float().max(1))
            if op == "amax":
                ok = torch.equal(out[:, 0].float().nan_to_num(7.0), ref_values.nan_to_num(7.0))
            elif op == "argmax":
                ok = torch.equal(idx[:, 0], x.float().argmax(1))
            else:
                ok = torch.equal(idx[:, 0], ref_values.indices) and torch.equal(
                    out[:, 0].float().nan_to_num(7.0), ref_values.values.nan_to_num(7.0))
            check(f"lean row reduction {op} {dtype}", ok)


def rotary_cache():
    """The fused rotary embedding and KV-cache write, from q, k and v as views of one qkv row."""
    rot = module("fused/rotary.py")

    def rotate(x, cos, sin, pos, r, interleaved):
        c, s = cos[pos][:, None, :], sin[pos][:, None, :]
        x = x.float()
        if interleaved:
            x1, x2 = x[..., 0:r:2], x[..., 1:r:2]
        else:
            x1, x2 = x[..., :r // 2], x[..., r // 2:r]
        y1, y2 = x1 * c - x2 * s, x2 * c + x1 * s
        out = x.clone()
        if interleaved:
            out[..., 0:r:2], out[..., 1:r:2] = y1, y2
        else:
            out[..., :r // 2], out[..., r // 2:r] = y1, y2
        return out

    for dtype, heads, kv_heads, d, r, interleaved in ((torch.float32, 8, 2, 64, 64, False),
                                                       (torch.float16, 6, 3, 48, 32, True)):
        tokens, page, blocks, positions = 5, 4, 4, 40
        qkv = torch.randn(tokens, (heads + 2 * kv_heads) * d).to(dtype)
        q = qkv[:, :heads * d].view(tokens, heads, d)
        k = qkv[:, heads * d:(heads + kv_heads) * d].view(tokens, kv_heads, d)
        v = qkv[:, (heads + kv_heads) * d:].view(tokens, kv_heads, d)
        angles = torch.randn(positions, r // 2)
        cos, sin = angles.cos().to(dtype), angles.sin().to(dtype)
        pos = torch.tensor([3, 17, 0, 39, 8])
        slots = torch.tensor([5, -1, 0, 15, 9])  # one padding token, not written
        key_cache = torch.zeros(blocks, page, kv_heads, d, dtype=dtype)
        value_cache = torch.zeros_like(key_cache)
        q_out, k_out = torch.empty(tokens, heads, d, dtype=dtype), torch.empty(tokens, kv_heads, d, dtype=dtype)
        block_h = triton.next_power_of_2(max(heads, kv_heads))
        grid = (tokens, triton.cdiv(heads, block_h) + triton.cdiv(kv_heads, block_h))
        rot.rotary_cache_kernel[grid](q, k, v, cos, sin, pos, q_out, k_out, key_cache, value_cache, slots, tokens,
                                      heads, kv_heads, d, r, qkv.stride(0), qkv.stride(0), qkv.stride(0),
                                      cos.stride(0), sin.stride(0), page, key_cache.stride(0), key_cache.stride(1),
                                      value_cache.stride(0), value_cache.stride(1), INTERLEAVED=interleaved,
                                      BLOCK_H=block_h, BLOCK_D=triton.next_power_of_2(r // 2),
                                      BLOCK_V=triton.next_power_of_2(d))
        q_ref, k_ref = rotate(q, cos, sin, pos, r, interleaved), rotate(k, cos, sin, pos, r, interleaved)
        key_ref, value_ref = torch.zeros_like(key_cache).float(), torch.zeros_like(value_cache).float()
        for i, slot in enumerate(slots.tolist()):
            if slot >= 0:
                key_ref[slot // page, slot % page] = k_ref[i]
                value_ref[slot // page, slot % page] = v[i].float()
        tolerance = 1e-6 if dtype == torch.float32 else 2e-3
        errors = [(out.float() - ref).abs().max().item()
                  for out, ref in ((q_out, q_ref), (k_out, k_ref), (key_cache, key_ref), (value_cache, value_ref))]
        check(f"rotary and cache {dtype} {heads}/{kv_heads} heads d={d} r={r} interleaved={interleaved}",
              max(errors) < tolerance, f"errors {['%.1e' % e for e in errors]}")
        # the fused kernel's rotation is rotary_kernel's, to the bit (they share its helpers)
        same = True
        for x, fused in ((q, q_out), (k, k_out)):
            alone = torch.empty_like(fused)
            rot.rotary_kernel[(tokens, triton.cdiv(x.shape[1], block_h))](
                x.contiguous(), cos, sin, pos, alone, tokens, positions, x.shape[1], d, r, cos.stride(0),
                sin.stride(0), HAS_POS=True, INTERLEAVED=interleaved, BLOCK_H=block_h,
                BLOCK_D=triton.next_power_of_2(r // 2))
            same = same and torch.equal(alone, fused)
        check(f"rotary alone and the fused rotation {dtype} interleaved={interleaved}", same,
              "bit for bit" if same else "differ")
    # the step after: sampled tokens in, positions and lengths on by one, the next slots
    attention = module("attention/attention.py")
    page = 4
    tables = torch.tensor([[3, 0, 7], [1, 2, 5], [6, 4, 8]], dtype=torch.int32)
    seq_lens = torch.tensor([4, 9, 1], dtype=torch.int32)  # next positions 4, 9, 1: pages 1, 2, 0
    sampled = torch.tensor([[11], [22], [33]])
    tokens, positions, slots = (torch.zeros(3, dtype=torch.int64) for _ in range(3))
    attention.advance_step_kernel[(1,)](tokens, sampled, positions, seq_lens, slots, tables, 3, page, sampled.stride(0),
                                        tables.stride(0), BLOCK=4)
    check("advance_step", tokens.tolist() == [11, 22, 33] and positions.tolist() == [4, 9, 1] and
          seq_lens.tolist() == [5, 10, 2] and slots.tolist() == [0 * page + 0, 5 * page + 1, 6 * page + 1],
          f"{tokens.tolist()} {positions.tolist()} {seq_lens.tolist()} {slots.tolist()}")


if __name__ == "__main__":
    if os.environ.get("TRITON_INTERPRET") != "1":
        sys.exit("run with TRITON_INTERPRET=1")
    torch.manual_seed(0)
    for part in (sys.argv[1:] or ["matmuls", "topk", "topk_whole_row", "softmax", "reductions", "rotary_cache"]):
        globals()[part]()
    sys.exit(1 if failures else 0)
