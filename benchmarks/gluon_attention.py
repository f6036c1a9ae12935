"""The Gluon prefill attention (operators/attention/attention_gluon.py) on a Hopper GPU, through
Triton's own launch: checked against a float32 reference (varlen batches, GQA, bottom-right
causal masks, head dims 64/128/256, bf16 and fp16, packed qkv strides), then timed beside
torch's SDPA (default, flash and cuDNN backends) and the @triton.jit prefill_kernel of
attention.py with the blocks attention.cpp gives it. Prints as it goes; a case that hangs ends
the run after --timeout seconds (faulthandler), it does not wait forever.
    python3 benchmarks/gluon_attention.py [--quick] [--no-bench] [--no-check] [--out DIR]
    python3 benchmarks/gluon_attention.py --plot DIR/attention.json   (attention.png beside it)
"""
import argparse
import faulthandler
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "operators", "common"))  # gluon_layouts, beside them when built
sys.path.insert(0, os.path.join(ROOT, "operators", "attention"))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
import triton  # noqa: E402

import attention  # noqa: E402
import attention_gluon  # noqa: E402

LOG2E = 1.4426950408889634
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16}
TOLERANCE = {torch.bfloat16: 2e-2, torch.float16: 1e-2}


def log(*args):
    print(*args, flush=True)


def watchdog(seconds):
    """Ends the process (with every thread's stack) unless disarmed within seconds: a kernel that
    deadlocks on its barriers must not hang the run."""
    faulthandler.cancel_dump_traceback_later()
    faulthandler.dump_traceback_later(seconds, exit=True)


# Device-made tensor maps need a global scratch; Triton's launcher takes it from this allocator.
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def cu_seqlens(lens):
    out = [0]
    for n in lens:
        out.append(out[-1] + n)
    return torch.tensor(out, dtype=torch.int32, device="cuda")


def make_inputs(lens_q, lens_k, heads, kv_heads, d, dtype, packed=False, seed=0):
    """q [total_q, heads, d], k and v [total_k, kv_heads, d]; packed: q, k and v are views of one
    [tokens, heads + 2 kv_heads, d] tensor (vLLM's qkv projection; then lens_q == lens_k)."""
    torch.manual_seed(seed)
    total_q, total_k = sum(lens_q), sum(lens_k)
    if packed:
        assert lens_q == lens_k
        qkv = torch.randn(total_q, heads + 2 * kv_heads, d, device="cuda", dtype=dtype)
        q, k, v = qkv.split([heads, kv_heads, kv_heads], dim=1)
    else:
        q = torch.randn(total_q, heads, d, device="cuda", dtype=dtype)
        k = torch.randn(total_k, kv_heads, d, device="cuda", dtype=dtype)
        v = torch.randn(total_k, kv_heads, d, device="cuda", dtype=dtype)
    return q, k, v, cu_seqlens(lens_q), cu_seqlens(lens_k)


KERNELS = {"ws": attention_gluon.attention_fwd_kernel,
           "pingpong": attention_gluon.attention_fwd_pingpong_kernel,
           "ordered": attention_gluon.attention_fwd_ordered_kernel,
           "persistent": attention_gluon.attention_fwd_persistent_kernel,
           "persistent-ordered": attention_gluon.attention_fwd_persistent_ordered_kernel,
           "persistent-n64": attention_gluon.attention_fwd_persistent_kernel}


def gluon_attention(q, k, v, cu_q, cu_k, max_q, causal, scale, out=None, kernel="ws", config=None):
    """attention_gluon's kernel ('ws': one consumer partition of two warpgroups; 'pingpong': two
    consumer partitions; 'ordered': those two issuing their products in turn; 'persistent': the
    ping-pong program over a grid of at most one program per SM, 'persistent-ordered' with the
    turns, 'persistent-n64' with 64-key blocks and four stages) through Triton's launch."""
    fn = KERNELS[kernel]
    heads, d = q.shape[1], q.shape[2]
    persistent = kernel.startswith("persistent")
    cfg = dict(config or attention_gluon.launch_config(d, q.element_size(), causal, max_q,
                                                       kernel in ("pingpong", "ordered"), persistent))
    if kernel == "persistent-n64" and config is None:
        cfg.update(BLOCK_N=64, NUM_STAGES=4)
    o = torch.empty_like(q) if out is None else out
    batch = cu_q.numel() - 1
    q_blocks = triton.cdiv(max_q, cfg["BLOCK_M"])
    extra = ()
    if persistent:
        sms = torch.cuda.get_device_properties(q.device).multi_processor_count
        grid = (max(1, min(q_blocks * heads * batch, sms)), )
        extra = (heads, batch, q_blocks)
    else:
        grid = (q_blocks, heads, batch)
    fn[grid](q, k, v, o, cu_q, cu_k, scale * LOG2E, q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0),
             v.stride(1), o.stride(0), o.stride(1), q.shape[0], k.shape[0], *extra, GROUP=heads // k.shape[1],
             HEAD_DIM=d, CAUSAL=causal, **cfg)
    return o


def supports(kernel, d):
    return not (kernel.startswith("persistent") and d == 256)


def prefill_config(d, dtype, max_q):
    """attention.cpp's blocks for prefill_kernel: (BLOCK_M, BLOCK_N, num_warps, num_stages)."""
    wide = d >= 256 or dtype == torch.float32
    short = not wide and max_q <= 512
    block_m = 64 if wide or short else 128
    block_n = 32 if d >= 256 else 64
    warps = 8 if d >= 128 and not wide and not short else 4
    stages = 2 if d >= 256 or short else 3
    return block_m, block_n, warps, stages


def triton_prefill(q, k, v, cu_q, cu_k, max_q, causal, scale, out=None):
    heads, d = q.shape[1], q.shape[2]
    block_m, block_n, warps, stages = prefill_config(d, q.dtype, max_q)
    o = torch.empty_like(q) if out is None else out
    grid = (triton.cdiv(max_q, block_m), heads, cu_q.numel() - 1)
    attention.prefill_kernel[grid](q, k, v, o, cu_q, cu_k, scale * LOG2E, q.stride(0), q.stride(1), k.stride(0),
                                   k.stride(1), v.stride(0), v.stride(1), o.stride(0), o.stride(1),
                                   GROUP=heads // k.shape[1], HEAD_DIM=d, CAUSAL=causal, PRECISION="tf32",
                                   BLOCK_M=block_m, BLOCK_N=block_n, num_warps=warps, num_stages=stages)
    return o


def reference(q, k, v, lens_q, lens_k, causal, scale):
    """float32, one sequence at a time, in chunks of queries; causal aligned to the bottom right;
    a query that sees no key is zero."""
    heads, kv_heads = q.shape[1], k.shape[1]
    out = torch.zeros(q.shape, dtype=torch.float32, device=q.device)
    q0 = k0 = 0
    for lq, lk in zip(lens_q, lens_k):
        kb = k[k0:k0 + lk].float().repeat_interleave(heads // kv_heads, dim=1).transpose(0, 1)  # [H, lk, D]
        vb = v[k0:k0 + lk].float().repeat_interleave(heads // kv_heads, dim=1).transpose(0, 1)
        chunk = max(1, min(lq, (1 << 29) // max(1, heads * lk)))
        for r0 in range(0, lq, chunk):
            r1 = min(lq, r0 + chunk)
            qb = q[q0 + r0:q0 + r1].float().transpose(0, 1)  # [H, c, D]
            s = torch.matmul(qb, kb.transpose(1, 2)) * scale
            if causal:
                i = torch.arange(r0, r1, device=q.device)[:, None]
                j = torch.arange(lk, device=q.device)[None, :]
                s.masked_fill_(j > i + (lk - lq), float("-inf"))
            m = s.amax(-1, keepdim=True)
            m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
            p = torch.exp(s - m)
            total = p.sum(-1, keepdim=True)
            total = torch.where(total > 0, total, torch.ones_like(total))
            out[q0 + r0:q0 + r1] = (torch.matmul(p, vb) / total).transpose(0, 1)
        q0 += lq
        k0 += lk
    return out


def check_case(kernels, name, lens_q, lens_k, heads, kv_heads, d, dtype, causal, packed=False, timeout=120,
               config=None):
    """Each kernel on one batch against the reference; the number that failed."""
    watchdog(timeout)
    q, k, v, cu_q, cu_k = make_inputs(lens_q, lens_k, heads, kv_heads, d, dtype, packed)
    scale = 1.0 / math.sqrt(d)
    ref = reference(q, k, v, lens_q, lens_k, causal, scale)
    torch.cuda.synchronize()
    failed = 0
    for kernel in (k for k in kernels if supports(k, d)):
        watchdog(timeout)
        t0 = time.time()
        try:
            # Rows past the batch's end hold a sentinel: the kernel must not write them.
            o_big = torch.full((q.shape[0] + 64, heads, d), 7.0, device="cuda", dtype=dtype)
            o = gluon_attention(q, k, v, cu_q, cu_k, max(lens_q), causal, scale, out=o_big[:q.shape[0]], kernel=kernel,
                                config=config)
            torch.cuda.synchronize()
            err = (o.float() - ref).abs().max().item() if o.numel() else 0.0
            finite = bool(torch.isfinite(o.float()).all().item())
            untouched = bool((o_big[q.shape[0]:] == 7.0).all().item())
            ok = finite and untouched and err <= TOLERANCE[dtype]
            verdict = (f"max abs err {err:.2e}{'' if finite else ' NON-FINITE'}"
                       f"{'' if untouched else ' WROTE PAST THE END'}")
        except Exception as e:  # noqa: BLE001 - report every case
            ok, verdict = False, f"{type(e).__name__}: {str(e)[-2000:]}"
        faulthandler.cancel_dump_traceback_later()
        failed += not ok
        log(f"{'PASS' if ok else 'FAIL'} {kernel:8} {name}: d={d} {str(dtype).split('.')[1]} causal={int(causal)} "
            f"heads={heads}/{kv_heads} q={lens_q if len(lens_q) < 8 else str(len(lens_q)) + ' seqs'} "
            f"k={'=q' if lens_k == lens_q else lens_k} packed={int(packed)}: {verdict} ({time.time() - t0:.1f} s)")
    return failed


def check(quick, kernels):
    varlen = [1, 17, 128, 300, 1000]
    prefixed = [n + extra for n, extra in zip(varlen, [0, 5, 64, 300, 7])]  # keys before the queries
    cases = []
    dims = (128, ) if quick else (64, 128, 256)
    dtypes = ("bf16", ) if quick else ("bf16", "fp16")
    for d in dims:
        for dt in dtypes:
            for causal in (False, True):
                for heads, kv in ((32, 8), (28, 4)) if not quick else ((32, 8), ):
                    cases.append(("varlen", varlen, varlen, heads, kv, d, DTYPES[dt], causal, False))
                cases.append(("prefixed keys", varlen, prefixed, 32, 8, d, DTYPES[dt], causal, False))
    # More queries than keys: causal queries that see no key are zero.
    cases.append(("queries > keys", [300, 64], [200, 1], 32, 8, 128, torch.bfloat16, True, False))
    cases.append(("packed qkv", varlen, varlen, 32, 8, 128, torch.bfloat16, True, True))
    cases.append(("packed qkv", varlen, varlen, 32, 8, 128, torch.float16, False, True))
    if not quick:
        cases.append(("empty sequence", [0, 129, 0], [0, 129, 5], 32, 8, 128, torch.bfloat16, True, False))
        cases.append(("many short", [3, 64, 65, 127, 129, 1] * 6, [3, 64, 65, 127, 129, 1] * 6, 32, 8, 64,
                      torch.float16, True, False))
    lengths = (2048, ) if quick else (512, 1024, 2048, 4096, 8192, 16384)
    for n in lengths:
        for causal in (False, True):
            cases.append((f"single {n}", [n], [n], 32, 8, 128, torch.bfloat16, causal, False))
    if not quick:
        for d in (64, 256):
            cases.append(("single 4096", [4096], [4096], 32, 8, d, torch.bfloat16, True, False))
    failed = runs = 0
    for case in cases:
        runs += sum(supports(k, case[5]) for k in kernels)
        try:
            failed += check_case(kernels, *case)
        except Exception as e:  # noqa: BLE001 - report every case (the reference's failures too)
            faulthandler.cancel_dump_traceback_later()
            failed += len(kernels)
            log(f"FAIL {case[0]} d={case[5]} causal={case[7]}: {type(e).__name__}: {str(e)[-2000:]}")
    log(f"correctness: {runs - failed} passed, {failed} failed")
    return failed


def bench_one(fn):
    watchdog(120)
    fn()
    torch.cuda.synchronize()
    # As CUDA graphs: the time of the kernels, not of Python's launches (Triton's launcher would
    # bound the short ones).
    ms = triton.testing.do_bench_cudagraph(fn, rep=100, return_mode="median")
    faulthandler.cancel_dump_traceback_later()
    return ms


def sdpa_runner(q4, k4, v4, causal, backend):
    """SDPA on [1, H, S, D] with GQA; a backend that refuses GQA gets the heads expanded (marked *)."""
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}

    def call(k_, v_, gqa):
        if backend == "default":
            return F.scaled_dot_product_attention(q4, k_, v_, is_causal=causal, enable_gqa=gqa)
        with sdpa_kernel(backends[backend]):
            return F.scaled_dot_product_attention(q4, k_, v_, is_causal=causal, enable_gqa=gqa)

    try:
        call(k4, v4, True)
        torch.cuda.synchronize()
        return (lambda: call(k4, v4, True)), ""
    except Exception:  # noqa: BLE001 - try again without GQA
        group = q4.shape[1] // k4.shape[1]
        ke, ve = k4.repeat_interleave(group, dim=1).contiguous(), v4.repeat_interleave(group, dim=1).contiguous()
        call(ke, ve, False)
        torch.cuda.synchronize()
        return (lambda: call(ke, ve, False)), "*"


def bench(quick, kernels, heads=32, kv_heads=8, d=128, rows=None, batch=1, lengths=None):
    """Each length as `batch` sequences of it (a varlen batch for ours, [batch, H, S, D] for SDPA)."""
    dtype = torch.bfloat16
    lengths = lengths or ((4096, ) if quick else (512, 1024, 2048, 4096, 8192, 16384))
    names = tuple(f"gluon-{k}" for k in kernels) + ("sdpa", "sdpa-flash", "sdpa-cudnn", "triton-prefill")
    log(f"\nbatch {batch}, heads {heads}/{kv_heads}, d={d}, bf16: us (TFLOP/s); * = SDPA without GQA (heads "
        "expanded)")
    log(f"{'seq':>6} {'causal':>6} " + " ".join(f"{n:>20}" for n in names) + "   best gluon/sdpa")
    for n in lengths:
        for causal in (False, True):
            q, k, v, cu_q, cu_k = make_inputs([n] * batch, [n] * batch, heads, kv_heads, d, dtype)
            scale = 1.0 / math.sqrt(d)
            q4 = q.view(batch, n, heads, d).transpose(1, 2).contiguous()
            k4 = k.view(batch, n, kv_heads, d).transpose(1, 2).contiguous()
            v4 = v.view(batch, n, kv_heads, d).transpose(1, 2).contiguous()
            o = torch.empty_like(q)
            runners = {"triton-prefill": (lambda: triton_prefill(q, k, v, cu_q, cu_k, n, causal, scale, out=o), "")}
            for kernel in kernels:
                runners[f"gluon-{kernel}"] = (lambda kernel=kernel: gluon_attention(
                    q, k, v, cu_q, cu_k, n, causal, scale, out=o, kernel=kernel), "")
            flops = 4.0 * batch * n * n * heads * d * (0.5 if causal else 1.0)
            cells, times = [], {}
            for name in names:
                try:
                    fn, mark = runners[name] if name in runners else sdpa_runner(
                        q4, k4, v4, causal, name.replace("sdpa-", "") if name != "sdpa" else "default")
                    ms = bench_one(fn)
                    times[name] = ms
                    cells.append(f"{ms * 1e3:10.1f}{mark:1} ({flops / ms * 1e-9:5.0f})")
                except Exception as e:  # noqa: BLE001 - a backend that cannot run this shape
                    faulthandler.cancel_dump_traceback_later()
                    cells.append(f"{'n/a':>20}")
                    log(f"  ({name} at {n} causal={int(causal)}: {type(e).__name__}: {str(e).splitlines()[0][:160]})")
            ours = [times[f"gluon-{k}"] for k in kernels if f"gluon-{k}" in times]
            ratio = min(ours) / times["sdpa"] if ours and "sdpa" in times else float("nan")
            if rows is not None:
                rows.append(dict(heads=heads, kv_heads=kv_heads, d=d, seq=n, batch=batch, causal=causal, flops=flops,
                                 us={name: ms * 1e3 for name, ms in times.items()}))
            log(f"{n:>6} {int(causal):>6} " + " ".join(cells) + f"   {ratio:10.2f}")


def plot(path):
    """TFLOP/s against context: ours beside SDPA's backends, one panel per (heads, causal)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(path) as f:
        rows = json.load(f)["rows"]
    panels = sorted({(r["heads"], r["kv_heads"], r["causal"]) for r in rows})
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 3.8), squeeze=False)
    for ax, (heads, kv_heads, causal) in zip(axes.flat, panels):
        mine = [r for r in rows if (r["heads"], r["kv_heads"], r["causal"]) == (heads, kv_heads, causal)]
        for name, style in (("gluon-pingpong", "o-"), ("sdpa", "s--"), ("sdpa-cudnn", "^:"), ("sdpa-flash", "v:"),
                            ("triton-prefill", "x-.")):
            points = [(r["seq"], r["flops"] / r["us"][name] * 1e-6) for r in mine if name in r["us"]]
            if points:
                label = {"gluon-pingpong": "ours (Gluon)", "sdpa": "SDPA default", "triton-prefill": "ours (@triton.jit)"}
                ax.plot(*zip(*points), style, label=label.get(name, name.replace("sdpa-", "SDPA ")))
        ax.set_xscale("log", base=2)
        ax.set_title(f"{heads}/{kv_heads} heads, d=128, {'causal' if causal else 'not causal'}", fontsize=9)
        ax.set_xlabel("context (tokens)")
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(os.path.dirname(path), "attention.png"), dpi=110)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="a few cases and one length")
    parser.add_argument("--no-check", action="store_true")
    parser.add_argument("--no-bench", action="store_true")
    parser.add_argument("--out", help="write the timings as attention.json there (and attention.png)")
    parser.add_argument("--plot", metavar="ATTENTION_JSON", help="draw attention.png beside an attention.json and exit")
    parser.add_argument("--kernel", default="both",
                        help="comma-separated: ws (attention_fwd_kernel), pingpong, ordered, persistent, "
                        "persistent-ordered, persistent-n64; "
                        "both = ws,pingpong")
    parser.add_argument("--lengths", help="comma-separated contexts to time (default 512 to 16384)")
    parser.add_argument("--gqa", default="32/8,28/4", help="comma-separated query/KV heads to time")
    parser.add_argument("--head-dim", type=int, default=128, help="head dim of the timed cases")
    parser.add_argument("--batches", action="store_true",
                        help="batches of short sequences instead (16 x 1k, 32 x 512, 64 x 256, 128 x 128), 32/8 heads")
    args = parser.parse_args()
    if args.plot:
        plot(args.plot)
        return
    kernels = ("ws", "pingpong") if args.kernel == "both" else tuple(args.kernel.split(","))
    unknown = [k for k in kernels if k not in KERNELS]
    if unknown:
        parser.error(f"--kernel: unknown {unknown}, expected some of {sorted(KERNELS)}")
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    log(torch.cuda.get_device_name(0), "torch", torch.__version__, "triton", triton.__version__)
    t0 = time.time()
    failed = 0 if args.no_check else check(args.quick, kernels)
    if args.batches and not args.no_bench:
        for batch, n in ((16, 1024), (32, 512), (64, 256), (128, 128)):
            bench(False, kernels, 32, 8, d=args.head_dim, batch=batch, lengths=(n, ))
    elif not args.no_bench:
        rows = []
        lengths = tuple(int(n) for n in args.lengths.split(",")) if args.lengths else None
        for heads, kv_heads in ((32, 8), ) if args.quick else (map(int, g.split("/")) for g in args.gqa.split(",")):
            bench(args.quick, kernels, heads, kv_heads, d=args.head_dim, rows=rows, lengths=lengths)
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, "attention.json"), "w") as f:
                json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                           "triton": triton.__version__, "rows": rows}, f)
            try:
                plot(os.path.join(args.out, "attention.json"))
            except ImportError:
                log("no matplotlib here: draw attention.png with --plot attention.json")
    log(f"done in {time.time() - t0:.0f} s; {'all checks passed' if not failed else f'{failed} checks FAILED'}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
