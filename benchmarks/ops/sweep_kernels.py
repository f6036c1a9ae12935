"""The operator library's LLM-shaped kernels launched directly through Triton's own runtime, over
their tuning spaces, beside what ATen runs for the same call: the measurements that choose the
configs the wrappers pass and the shape classes a stand-in routes back to ATen
(operators/common/stand_in_policy.cpp). Needs no build of this project, only a GPU, torch and
triton: every kernel is checked against torch before it is timed.

  python benchmarks/ops/sweep_kernels.py [--parts gemm,splitk,bmm,softmax,reduce,topk,attention] [--json out.json]

Times are GPU microseconds per call: a CUDA graph of 20 calls, median of 10 replays, weights
rotated over copies larger than L2 where they would otherwise stay in it."""
import argparse
import importlib.util
import itertools
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HIDDEN, MLP, VOCAB, HEADS, KV_HEADS, HEAD_DIM = 4096, 14336, 128256, 32, 8, 128
LINEARS = {"qkv": (6144, 4096), "o": (4096, 4096), "gate_up": (28672, 4096), "down": (4096, 14336),
           "lm_head": (VOCAB, 4096)}


def module(relative):
    path = os.path.join(ROOT, "operators", relative)
    spec = importlib.util.spec_from_file_location(os.path.basename(relative)[:-3], path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def undecorated(kernel):
    while type(kernel).__name__ in ("Autotuner", "Heuristics"):
        kernel = kernel.fn
    return kernel


def gpu_us(fn, calls=20, replays=10):
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for _ in range(calls):
            fn()
    times = []
    for _ in range(replays):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        graph.replay()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) * 1e3 / calls)
    return statistics.median(times)


def rel_error(out, ref):
    out, ref = out.float(), ref.float()
    return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()


def rotation(make, bytes_each, at_least=200 << 20):
    """Copies of an input whose sizes together pass L2 (60 MB on the H200) several times."""
    copies = max(1, min(8, -(-at_least // max(1, bytes_each))))
    items = [make() for _ in range(copies)]
    state = {"i": 0}

    def next_item():
        state["i"] = (state["i"] + 1) % copies
        return items[state["i"]]
    return items, next_item


def best_timings(kernel):
    timings = getattr(kernel, "configs_timings", None) or {}
    ranked = sorted(((t[0] if isinstance(t, (list, tuple)) else t, c) for c, t in timings.items()), key=lambda p: p[0])
    return [(f"{c}", round(t * 1e3, 1)) for t, c in ranked[:3]]


# ---- GEMMs ---------------------------------------------------------------------------------------

def gemm_rows(ms_small, ms_large, dtype, names):
    skinny = module("matmul/matmul_skinny.py").matmul_skinny_kernel
    tma = module("matmul/matmul_tma.py").matmul_tma_kernel
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    for name in names:
        n, k = LINEARS[name]
        weights, next_weight = rotation(lambda: torch.randn(n, k, device="cuda", dtype=dtype) * 0.02, n * k * 2)
        for m in ms_small + ms_large:
            if name == "lm_head" and m > 2048:
                continue
            x = torch.randn(m, k, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            holder = {}

            def ours():
                w = holder.pop("w", None)
                b = (next_weight() if w is None else w).t()
                if m <= 64:
                    block_m = max(16, triton.next_power_of_2(m))
                    skinny[lambda meta: (triton.cdiv(n, meta["BLOCK_N"]), 1)](
                        x, b, c, c, m, n, k, 0, x.stride(0), x.stride(1), 0, b.stride(0), b.stride(1), 0, c.stride(0),
                        c.stride(1), 0, 0, 0, 1.0, 0.0, 0, HAS_BIAS=False, BLOCK_M=block_m)
                    return skinny
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    x, b, c, c, m, n, k, 1, m * k, x.stride(0), n * k, b.stride(0), b.stride(1), m * n, c.stride(0),
                    0, 0, 0, 1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)
                return tma

            holder["w"] = weights[0]
            kernel = ours()
            torch.cuda.synchronize()
            err = rel_error(c, x.float() @ weights[0].float().t())
            ours_us = gpu_us(ours)
            aten_us = gpu_us(lambda: torch.mm(x, next_weight().t()))
            flops = 2 * m * n * k
            rows.append({"op": "mm", "shape": f"{name} {m}x{k}x{n}", "ours_us": ours_us, "aten_us": aten_us,
                         "ratio": ours_us / aten_us, "ours_tflops": flops / ours_us / 1e6,
                         "aten_tflops": flops / aten_us / 1e6, "error": err, "best": best_timings(kernel),
                         "kernel": "skinny" if m <= 64 else "tma"})
            print_row(rows[-1])
        del weights
        torch.cuda.empty_cache()
    return rows


def split_k_rows(ms, dtype, names, splits=(2, 3, 4, 6, 8)):
    """Decode GEMMs with K split across programs (matmul_skinny_split_kernel, then split_k_reduce),
    beside the unsplit skinny kernel and ATen."""
    mod = module("matmul/matmul_skinny.py")
    skinny, split, reduce = mod.matmul_skinny_kernel, mod.matmul_skinny_split_kernel, mod.split_k_reduce
    rows = []
    for name in names:
        n, k = LINEARS[name]
        weights, next_weight = rotation(lambda: torch.randn(n, k, device="cuda", dtype=dtype) * 0.02, n * k * 2)
        for m in ms:
            x = torch.randn(m, k, device="cuda", dtype=dtype)
            c = torch.empty(m, n, device="cuda", dtype=dtype)
            block_m = max(16, triton.next_power_of_2(m))
            reference = x.float() @ weights[0].float().t()

            def unsplit(w=None):
                b = (next_weight() if w is None else w).t()
                skinny[lambda meta: (triton.cdiv(n, meta["BLOCK_N"]), 1)](
                    x, b, c, c, m, n, k, 0, x.stride(0), x.stride(1), 0, b.stride(0), b.stride(1), 0, c.stride(0),
                    c.stride(1), 0, 0, 0, 1.0, 0.0, 0, HAS_BIAS=False, BLOCK_M=block_m)

            unsplit(weights[0])
            torch.cuda.synchronize()
            row = {"op": "mm split-K", "shape": f"{name} {m}x{k}x{n}", "error_unsplit": rel_error(c, reference),
                   "unsplit_us": gpu_us(unsplit), "aten_us": gpu_us(lambda: torch.mm(x, next_weight().t())),
                   "unsplit_best": best_timings(skinny)[:1], "splits": {}}
            for s in splits:
                partial = torch.empty(s, m, n, device="cuda", dtype=torch.float32)

                def ours(w=None, s=s, partial=partial):
                    b = (next_weight() if w is None else w).t()
                    split[lambda meta: (triton.cdiv(n, meta["BLOCK_N"]), s)](
                        x, b, partial, m, n, k, x.stride(0), x.stride(1), b.stride(0), b.stride(1),
                        BLOCK_M=block_m, SPLIT_K=s)
                    reduce[(triton.cdiv(m * n, 1024),)](partial, c, m, n, c.stride(0), c.stride(1), SPLIT_K=s,
                                                        BLOCK=1024)

                c.zero_()
                ours(weights[0])
                torch.cuda.synchronize()
                err = rel_error(c, reference)
                assert err < 2e-2, (name, m, s, err)
                row["splits"][s] = {"us": gpu_us(ours), "error": err, "best": best_timings(split)[:1]}
            best = min(row["splits"], key=lambda s: row["splits"][s]["us"])
            row.update(best_split=best, split_us=row["splits"][best]["us"],
                       ratio_unsplit=row["unsplit_us"] / row["aten_us"],
                       ratio_split=row["splits"][best]["us"] / row["aten_us"])
            print(f"{row['shape']:<28} aten {row['aten_us']:7.1f} us  unsplit {row['unsplit_us']:7.1f} "
                  f"({row['ratio_unsplit']:.2f}x)  split-K {best}: {row['split_us']:7.1f} ({row['ratio_split']:.2f}x)  "
                  + "  ".join(f"S{s} {v['us']:.1f}" for s, v in row["splits"].items())
                  + f"  best {row['splits'][best]['best']}", flush=True)
            rows.append(row)
        del weights
        torch.cuda.empty_cache()
    return rows


def bmm_rows(dtype):
    tma = module("matmul/matmul_tma.py").matmul_tma_kernel
    generic = module("matmul/matmul.py").matmul_kernel
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    rows = []
    for length, d in ((128, 128), (512, 128), (2048, 128), (2048, 64)):
        q = torch.randn(32, length, d, device="cuda", dtype=dtype)
        kk = torch.randn(32, length, d, device="cuda", dtype=dtype)
        p = torch.softmax(torch.randn(32, length, length, device="cuda"), -1).to(dtype)
        for kind, a, b in (("scores", q, kk.transpose(1, 2)), ("values", p, kk)):
            batch, m, kdim = a.shape
            n = b.shape[2]
            c = torch.empty(batch, m, n, device="cuda", dtype=dtype)
            kmajor = b.stride(1) == 1

            def run_tma():
                tma[lambda meta: (min(sms, batch * triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    a, b, c, c, m, n, kdim, batch, a.stride(0), a.stride(1), b.stride(0), b.stride(1), b.stride(2),
                    c.stride(0), c.stride(1), 0, 0, 0, 1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False,
                    B_KMAJOR=kmajor, NUM_SMS=sms)

            def run_generic():
                generic[lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), batch)](
                    a, b, c, c, m, n, kdim, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1), b.stride(2),
                    c.stride(0), c.stride(1), c.stride(2), 0, 0, 0, 1.0, 0.0, 0, HAS_BIAS=False, PRECISION="tf32")

            ref = torch.bmm(a.float(), b.float())
            results = {}
            for label, fn, kernel in (("tma", run_tma, tma), ("generic", run_generic, generic)):
                fn()
                torch.cuda.synchronize()
                results[label] = (gpu_us(fn), rel_error(c, ref), best_timings(kernel))
            aten_us = gpu_us(lambda: torch.bmm(a, b))
            flops = 2 * batch * m * n * kdim
            for label, (us, err, best) in results.items():
                rows.append({"op": "bmm", "shape": f"{kind} {batch}x{m}x{kdim}x{n}", "kernel": label, "ours_us": us,
                             "aten_us": aten_us, "ratio": us / aten_us, "ours_tflops": flops / us / 1e6,
                             "aten_tflops": flops / aten_us / 1e6, "error": err, "best": best})
                print_row(rows[-1])
    return rows


# ---- selections --------------------------------------------------------------------------------

def softmax_rows(row_counts):
    sm = module("reduction/softmax.py")
    stats_k, finish_k, rows_k = sm.softmax_chunk_stats_kernel, sm.softmax_chunk_finish_kernel, sm.softmax_rows_kernel
    out_rows = []
    for rows in row_counts:
        x = torch.randn(rows, VOCAB, device="cuda") * 4
        out = torch.empty_like(x)
        ref = torch.softmax(x, -1)
        aten_us = gpu_us(lambda: torch.softmax(x, -1))
        variants = [("rows 2048x8w", None)]
        for chunk in (2048, 4096, 8192, 16384):
            for block, warps in ((1024, 4), (2048, 8)):
                if block <= chunk:
                    variants.append((f"split chunk {chunk} block {block} {warps}w", (chunk, block, warps)))
        for label, v in variants:
            if v is None:
                def fn():
                    rows_k[(rows,)](x, out, rows, VOCAB, LOG=False, ONE_PASS=False, BLOCK_N=2048, INDEX64=False,
                                    num_warps=8)
            else:
                chunk, block, warps = v
                chunks = triton.cdiv(VOCAB, chunk)
                stats = torch.empty(rows, chunks, 2, device="cuda")

                def fn(chunk=chunk, block=block, warps=warps, chunks=chunks, stats=stats):
                    stats_k[(rows, chunks)](x, stats, VOCAB, chunk, BLOCK_N=block, num_warps=warps)
                    finish_k[(rows, chunks)](x, out, stats, VOCAB, chunk, LOG=False, BLOCK_N=block,
                                             CHUNKS_PAD=triton.next_power_of_2(chunks), num_warps=warps)
            fn()
            torch.cuda.synchronize()
            us = gpu_us(fn)
            out_rows.append({"op": "softmax", "shape": f"{rows}x{VOCAB} fp32", "kernel": label, "ours_us": us,
                             "aten_us": aten_us, "ratio": us / aten_us, "error": rel_error(out, ref)})
            print_row(out_rows[-1])
    return out_rows


def reduce_rows(row_counts):
    red = module("reduction/reduce.py")
    kern = red.reduce_rows_kernel
    out_rows = []
    for rows in row_counts:
        x = torch.randn(rows, VOCAB, device="cuda")
        for op in ("argmax", "amax"):
            ref = x.argmax(-1) if op == "argmax" else x.amax(-1)
            aten_us = gpu_us((lambda: x.argmax(-1)) if op == "argmax" else (lambda: x.amax(-1)))
            for block_m, block_n, warps, target in ((4, 1024, 8, 528), (1, 2048, 8, 528), (2, 2048, 8, 528),
                                                    (4, 1024, 8, 1056), (1, 4096, 8, 528), (8, 512, 4, 528),
                                                    (1, 1024, 4, 1056), (2, 1024, 4, 2112)):
                programs = triton.cdiv(rows, block_m)
                splits = 1
                if programs < target and VOCAB >= 8 * block_n:
                    splits = min(triton.cdiv(target, programs), triton.cdiv(VOCAB, 4 * block_n))
                chunk = triton.cdiv(triton.cdiv(VOCAB, splits), block_n) * block_n
                splits = triton.cdiv(VOCAB, chunk)
                part = torch.empty(rows, splits, device="cuda")
                part_i = torch.empty(rows, splits, device="cuda", dtype=torch.int64)
                out = torch.empty(rows, device="cuda")
                out_i = torch.empty(rows, device="cuda", dtype=torch.int64)

                def fn(splits=splits, chunk=chunk, part=part, part_i=part_i, out=out, out_i=out_i, block_m=block_m,
                       block_n=block_n, warps=warps, op=op):
                    if splits == 1:
                        kern[(triton.cdiv(rows, block_m), 1)](x, out_i, out, out_i, rows, VOCAB, VOCAB, 1.0, OP=op,
                                                              ACC="fp32", PARTIAL_IN=False, BLOCK_M=block_m,
                                                              BLOCK_N=block_n, INDEX64=False, num_warps=warps)
                        return
                    first = "amax" if op == "amax" else "max"
                    kern[(triton.cdiv(rows, block_m), splits)](x, part_i, part, part_i, rows, VOCAB, chunk, 1.0,
                                                               OP=first, ACC="fp32", PARTIAL_IN=False, BLOCK_M=block_m,
                                                               BLOCK_N=block_n, INDEX64=False, num_warps=warps)
                    bn = triton.next_power_of_2(splits)
                    bm = max(1, min(4096 // bn, triton.next_power_of_2(rows)))
                    kern[(triton.cdiv(rows, bm), 1)](part, part_i, out, out_i, rows, splits, splits, 1.0, OP=op,
                                                     ACC="fp32", PARTIAL_IN=op != "amax", BLOCK_M=bm, BLOCK_N=bn,
                                                     INDEX64=False, num_warps=4)
                fn()
                torch.cuda.synchronize()
                good = torch.equal(out_i, ref) if op == "argmax" else torch.equal(out, ref)
                us = gpu_us(fn)
                out_rows.append({"op": op, "shape": f"{rows}x{VOCAB} fp32",
                                 "kernel": f"{block_m}x{block_n} {warps}w splits {splits}", "ours_us": us,
                                 "aten_us": aten_us, "ratio": us / aten_us, "error": 0.0 if good else 1.0,
                                 "gbs": x.numel() * 4 / us / 1e3})
                print_row(out_rows[-1])
    return out_rows


TOPK_PLANS = ((4096, 8, 4096, 8), (2048, 4, 2048, 4), (8192, 16, 4096, 8), (4096, 4, 2048, 4), (8192, 8, 8192, 16))


def topk_rows(cases, radix_bits, groups_options, plans=TOPK_PLANS):
    tk = module("topk/topk.py")
    radix, sort = tk.topk_radix_kernel, tk.topk_sort_kernel
    out_rows = []
    for rows, dtype, k, data in cases:
        x = torch.randn(rows, VOCAB, device="cuda") * 3
        if data == "rounded":  # few distinct values: a chunk's bound leaves too many keys, passes decide
            x = x.round()
        x = x.to(dtype)
        rv, ri = torch.topk(x, k, dim=-1)
        aten_us = gpu_us(lambda: torch.topk(x, k, dim=-1))
        for (chunk, warps, final_max, sort_warps), bits, groups in itertools.product(plans, radix_bits,
                                                                                     groups_options):
            k_pad = triton.next_power_of_2(k)
            if chunk < 4 * k_pad or final_max < 2 * k_pad or (groups and (k > groups or chunk % groups)):
                continue
            slots = 2 * k_pad if groups else k
            plan = []
            n = VOCAB
            while n > final_max:
                chunks = triton.cdiv(n, chunk)
                plan.append((n, chunks, torch.empty(rows, chunks * slots, device="cuda", dtype=torch.int32),
                             torch.empty(rows, chunks * slots, device="cuda", dtype=torch.int32)))
                n = chunks * slots
            values = torch.empty(rows, k, device="cuda", dtype=dtype)
            indices = torch.empty(rows, k, device="cuda", dtype=torch.int64)

            def fn(plan=plan, n_final=n, chunk=chunk, warps=warps, values=values, indices=indices,
                   sort_warps=sort_warps, bits=bits, groups=groups, slots=slots):
                cur, cur_i, partial = x, None, False
                for n_in, chunks, keys_out, idx_out in plan:
                    radix[(rows, chunks)](cur, cur_i if partial else idx_out, keys_out, idx_out, n_in, k, LARGEST=True,
                                          PARTIAL_IN=partial, BLOCK=chunk, K_PAD=k_pad, RADIX_BITS=bits,
                                          GROUPS=groups, SLOTS=slots if groups else 0, num_warps=warps)
                    cur, cur_i, partial = keys_out, idx_out, True
                sort[(rows,)](cur, cur_i if partial else indices, values, indices, n_final, k, LARGEST=True,
                              PARTIAL_IN=partial, BLOCK=triton.next_power_of_2(max(n_final, k)), num_warps=sort_warps)
            fn()
            torch.cuda.synchronize()
            good = torch.equal(values, rv) and torch.equal(x.gather(1, indices), rv)
            us = gpu_us(fn)
            bound = f", bound of {groups} groups" if groups else ""
            out_rows.append({"op": f"topk({k})", "shape": f"{rows}x{VOCAB} {str(dtype)[6:]} {data}",
                             "kernel": f"radix{bits} chunk {chunk} {warps}w{bound}, sort <= {final_max} {sort_warps}w, "
                                       f"{len(plan)} rounds", "ours_us": us, "aten_us": aten_us,
                             "ratio": us / aten_us, "error": 0.0 if good else 1.0})
            print_row(out_rows[-1])
        del x
    return out_rows


# ---- attention -----------------------------------------------------------------------------------

def attention_rows(contexts):
    from torch.nn.attention import SDPBackend, sdpa_kernel
    prefill = module("attention/attention.py").prefill_kernel
    dtype = torch.bfloat16
    out_rows = []
    for ctx in contexts:
        batch = max(1, 16384 // ctx)
        q = torch.randn(batch, ctx, HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        k = torch.randn(batch, ctx, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        v = torch.randn(batch, ctx, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        cu = torch.arange(0, (batch + 1) * ctx, ctx, device="cuda", dtype=torch.int32)
        qf, kf, vf = (t.view(batch * ctx, t.shape[2], HEAD_DIM) for t in (q, k, v))
        out = torch.empty_like(qf)
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))

        def sdpa():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, enable_gqa=True)
        ref = sdpa().transpose(1, 2).reshape(batch * ctx, HEADS, HEAD_DIM)
        sdpa_us = gpu_us(sdpa)
        scale = HEAD_DIM ** -0.5 * 1.4426950408889634
        for block_m, block_n, warps, stages in ((128, 64, 8, 3), (128, 64, 8, 2), (128, 128, 8, 2), (128, 128, 8, 1),
                                                (64, 64, 4, 2), (64, 64, 4, 3), (128, 32, 4, 2), (64, 128, 4, 2),
                                                (128, 64, 4, 2)):
            def fn(block_m=block_m, block_n=block_n, warps=warps, stages=stages):
                prefill[(triton.cdiv(ctx, block_m), HEADS, batch)](
                    qf, kf, vf, out, cu, cu, scale, qf.stride(0), qf.stride(1), kf.stride(0), kf.stride(1),
                    vf.stride(0), vf.stride(1), out.stride(0), out.stride(1), GROUP=HEADS // KV_HEADS,
                    HEAD_DIM=HEAD_DIM, CAUSAL=True, PRECISION="tf32", BLOCK_M=block_m, BLOCK_N=block_n,
                    num_warps=warps, num_stages=stages)
            try:
                fn()
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - a config that does not fit is reported, not fatal
                print(f"attention {ctx}: {block_m}x{block_n} {warps}w {stages}s failed: {str(e)[:120]}")
                continue
            us = gpu_us(fn)
            flops = 4 * batch * HEADS * ctx * ctx * HEAD_DIM / 2
            out_rows.append({"op": "prefill", "shape": f"{batch}x{ctx} causal", "kernel": f"{block_m}x{block_n} "
                             f"{warps}w {stages}s", "ours_us": us, "aten_us": sdpa_us, "ratio": us / sdpa_us,
                             "ours_tflops": flops / us / 1e6, "error": rel_error(out, ref)})
            print_row(out_rows[-1])
        del q, k, v
        torch.cuda.empty_cache()
    return out_rows


def print_row(r):
    extra = f" {r['ours_tflops']:7.1f}/{r['aten_tflops']:6.1f} TF/s" if "aten_tflops" in r else ""
    extra += f" {r['gbs']:6.0f} GB/s" if "gbs" in r else ""
    best = f"  best {r['best'][:2]}" if r.get("best") else ""
    print(f"{r['op']:>10} {r['shape']:<26} {r.get('kernel', ''):<40} {r['ours_us']:9.1f} {r['aten_us']:9.1f} "
          f"{r['ratio']:6.2f}{extra} err {r['error']:.1e}{best}", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--parts", default="gemm,bmm,softmax,reduce,topk,attention")
    parser.add_argument("--linears", default="qkv,o,gate_up,down,lm_head")
    parser.add_argument("--topk-cases", default="1:float32:50,16:float32:50,16:bfloat16:50,256:float32:50,"
                                                  "4096:float32:50,4096:bfloat16:50,16:float32:1024",
                        help="rows:dtype:k[:randn|rounded],...")
    parser.add_argument("--splitk-rows", default="16,32,64", help="token counts of the split-K part")
    parser.add_argument("--topk-radix-bits", default="5", help="digit widths of the radix select to try")
    parser.add_argument("--topk-groups", default="0,128",
                        help="group counts of the radix select's bound to try (0: digit passes only)")
    parser.add_argument("--topk-chunks", help="chunk:warps pairs of the radix select to try (default: all)")
    parser.add_argument("--json")
    options = parser.parse_args()
    torch.manual_seed(0)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, triton {triton.__version__}")
    print(f"{'op':>10} {'shape':<26} {'kernel':<40} {'ours us':>9} {'ATen us':>9} {'ratio':>6}")
    parts = options.parts.split(",")
    results = []
    if "gemm" in parts:
        results += gemm_rows([1, 8, 16, 32, 64], [128, 256, 512, 2048, 8192], torch.bfloat16,
                             options.linears.split(","))
    if "splitk" in parts:
        results += split_k_rows([int(m) for m in options.splitk_rows.split(",")], torch.bfloat16,
                                options.linears.split(","))
    if "bmm" in parts:
        results += bmm_rows(torch.bfloat16)
    if "softmax" in parts:
        results += softmax_rows([1, 16, 256])
    if "reduce" in parts:
        results += reduce_rows([1, 16, 256, 4096])
    if "topk" in parts:
        results += topk_rows([(int(c[0]), getattr(torch, c[1]), int(c[2]), c[3] if len(c) > 3 else "randn")
                              for c in (case.split(":") for case in options.topk_cases.split(","))],
                              [int(b) for b in options.topk_radix_bits.split(",")],
                              [int(g) for g in options.topk_groups.split(",")],
                              [p for p in TOPK_PLANS if not options.topk_chunks
                               or f"{p[0]}:{p[1]}" in options.topk_chunks.split(",")])
    if "attention" in parts:
        results += attention_rows([128, 512, 2048])
    bad = [r for r in results if r.get("error", r.get("error_unsplit", 0)) > 2e-2]
    print(f"\n{len(results)} rows, {len(bad)} with an error over 2e-2" + "".join(
        f"\n  {r['op']} {r['shape']} {r.get('kernel', '')}: {r['error']:.2e}" for r in bad))
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                       "triton": triton.__version__, "rows": results}, f, indent=1)


if __name__ == "__main__":
    main()
