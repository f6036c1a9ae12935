"""The Hopper Gluon GEMM (operators/matmul/matmul_gluon.py) against cuBLAS (torch.matmul) at the
linear layers of Llama-3-8B and Qwen2.5-7B, M = 1 to 8192 tokens, bf16, side by side in one run.

Both are timed as CUDA graphs of 20 launches (triton.testing.do_bench_cudagraph, median), each
launch on its own copy of the weight (rotated, so that a weight is read from HBM, not the 60 MB
L2); ours launched through the runtime's Python entry. For each shape the fastest of a few tile
configurations of the four kernels (whole tiles, stream-K, ping-pong, sliced) is kept and named; each
shape's line also gives each kernel's fastest. Prints a table; with --out DIR also writes
gemm.txt, the rows as gemm.json and, where matplotlib is installed, gemm.png (TFLOP/s against M,
ours beside cuBLAS). With --library (the operator library, libtriton_jit_ops.so) the table also
times the library's own `triton_jit::mm` (its @triton.jit kernels, no stand-in routing), so that a
shape class moves to a Gluon kernel only where it beats both.
--plot redraws the PNG from a gemm.json on a machine without a GPU.

    python benchmarks/gluon_gemm.py [--quick] [--tokens 128,256,512] [--kernels whole,stream-K,ping-pong,sliced]
                                    [--library build/lib/libtriton_jit_ops.so] [--out DIR]
    python benchmarks/gluon_gemm.py --plot DIR/gemm.json
"""
import argparse
import json
import os
import sys

import torch
import triton

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "operators", "common"))  # gluon_layouts, beside them when built
sys.path.insert(0, os.path.join(ROOT, "operators", "matmul"))
import matmul_gluon  # noqa: E402

LINEARS = {  # name: (N, K) of y = x @ W^T, W [N, K]
    "llama3-8b qkv": (6144, 4096), "llama3-8b o": (4096, 4096), "llama3-8b gate_up": (28672, 4096),
    "llama3-8b down": (4096, 14336), "llama3-8b lm_head": (128256, 4096),
    "qwen2.5-7b qkv": (4608, 3584), "qwen2.5-7b o": (3584, 3584), "qwen2.5-7b gate_up": (37888, 3584),
    "qwen2.5-7b down": (3584, 18944), "qwen2.5-7b lm_head": (152064, 3584),
}
TOKENS = [1, 16, 64, 128, 512, 2048, 8192]


def configs(M, kernels=("whole", "stream-K", "ping-pong", "sliced")):
    """(name, launch keyword arguments) to try for M tokens."""
    if M <= 64:
        tile_c = max(16, triton.next_power_of_2(M))
        shapes = [(r, k, matmul_gluon.stages_that_fit(r, tile_c, k, 2, most)) for r, k, most in ((64, 128, 8), (64, 64, 8),
                                                                                               (128, 128, 6))]
        return [(f"swap {r}x{tile_c}x{k} s{s}", dict(swap=True, tile_r=r, tile_c=tile_c, block_k=k, stages=s, warps=4))
                for r, k, s in shapes]
    # 64 x 256 fills one wave where 128 x 128 leaves a second one nearly empty (Qwen2.5-7B's qkv
    # at M = 512: 144 tiles of 128 x 128 on 132 SMs, 144 of 64 x 256 but each half the rows).
    wide = (64, 256, matmul_gluon.stages_that_fit(64, 256, 64, 2, 5), 4)
    tiles = ((64, 64, 8, 4), (64, 128, 6, 4), (128, 128, 4, 4), wide) if M <= 256 else \
        ((128, 256, 3, 8), (128, 128, 4, 4), (64, 128, 6, 4), wide)
    whole = [(f"{r}x{c}x64 s{s} w{w}", dict(swap=False, tile_r=r, tile_c=c, block_k=64, stages=s, warps=w))
             for r, c, s, w in tiles]
    mine = whole if "whole" in kernels else []
    # The same tiles with the last waves in stream-K (matmul_stream_k_kernel).
    shared = [(f"stream-K {label}", dict(cfg, stream_k=True)) for label, cfg in whole if "stream-K" in kernels]
    # Several tiles a program: two warpgroups in turn (matmul_pingpong_kernel), a tile each.
    turns = [(f"ping-pong {r}x{c}x64 s{s}", dict(swap=False, tile_r=r, tile_c=c, block_k=64, stages=s, warps=4,
                                                 pingpong=True))
             for r, c in ((128, 128), (64, 256)) for s in [matmul_gluon.stages_that_fit(r, c, 64, 2, epilogues=2)]]
    # Tiles of 2 to 4 slices of 64 weight rows, a consumer warpgroup each (matmul_sliced_kernel):
    # 128 to 256 weight rows by 64 to 256 tokens, sized for one wave where powers of two are not.
    slices = [(n, t) for n, t in ((3, 128), (4, 128), (2, 256), (3, 64), (4, 64)) if t <= 128 or M > 128]
    sliced = [(f"sliced {64 * n}x{t}x64 s{s}", dict(swap=True, slices=n, tile_c=t, block_k=64, stages=s))
              for n, t in slices for s in [matmul_gluon.stages_that_fit(64 * n, t, 64, 2)]]
    return (mine + shared + (turns if M > 256 and "ping-pong" in kernels else []) +
            (sliced if "sliced" in kernels else []))


def runtime_kernels():
    """The GEMM kernels through the runtime's Python entry, as launcher() takes them."""
    import triton_jit
    return {"whole": triton_jit.jit(matmul_gluon.matmul_ws_kernel),
            "stream-K": triton_jit.jit(matmul_gluon.matmul_stream_k_kernel),
            "ping-pong": triton_jit.jit(matmul_gluon.matmul_pingpong_kernel),
            "sliced": triton_jit.jit(matmul_gluon.matmul_sliced_kernel)}


def launcher(kernels, a, w, c, cfg, sms):
    """A function that runs C = A @ W^T (W [N, K]) once with `cfg`. A stream-K one has its own
    scratch; its `counts` must be zero after a launch."""
    M, K = a.shape
    N = w.shape[0]
    if cfg.get("stream_k"):
        r, col, k = cfg["tile_r"], cfg["tile_c"], cfg["block_k"]
        programs = matmul_gluon.stream_k_programs(M, N, K, r, col, k, sms)
        partial = torch.empty(programs, 2, r, col, device=a.device, dtype=torch.float32)
        counts = torch.zeros(2 * programs, device=a.device, dtype=torch.int32)
        launch = kernels["stream-K"][(programs, )]
        args = (a, w, c, None, partial, counts, M, N, K, a.stride(0), w.stride(0), c.stride(0))
        meta = dict(TILE_R=r, TILE_C=col, BLOCK_K=k, GROUP_M=8, NUM_STAGES=cfg["stages"], W_KMAJOR=True,
                    HAS_BIAS=False, num_warps=cfg["warps"])

        def run():
            launch(*args, **meta)
        run.counts = counts
        return run
    if cfg.get("slices"):
        tiles = triton.cdiv(N, 64 * cfg["slices"]) * triton.cdiv(M, cfg["tile_c"])
        launch = kernels["sliced"][(min(sms, tiles), )]
        args = (w, a, c, None, N, M, K, w.stride(0), a.stride(0), c.stride(0))
        meta = dict(TILE_C=cfg["tile_c"], BLOCK_K=cfg["block_k"], GROUP_M=8, NUM_STAGES=cfg["stages"],
                    SLICES=cfg["slices"], HAS_BIAS=False, num_warps=4)
        return lambda: launch(*args, **meta)
    kernel = kernels["ping-pong" if cfg.get("pingpong") else "whole"]
    if cfg["swap"]:
        args = (w, a, c, None, N, M, K, w.stride(0), a.stride(0), c.stride(0))
        rows, cols = N, M
    else:
        args = (a, w, c, None, M, N, K, a.stride(0), w.stride(0), c.stride(0))
        rows, cols = M, N
    grid = (min(sms, triton.cdiv(rows, cfg["tile_r"]) * triton.cdiv(cols, cfg["tile_c"])),)
    meta = dict(TILE_R=cfg["tile_r"], TILE_C=cfg["tile_c"], BLOCK_K=cfg["block_k"], GROUP_M=8,
                NUM_STAGES=cfg["stages"], W_KMAJOR=True, SWAP_AB=cfg["swap"], HAS_BIAS=False, num_warps=cfg["warps"])
    if cfg.get("pingpong"):
        del meta["SWAP_AB"]
    launch = kernel[grid]
    return lambda: launch(*args, **meta)


def rotated(fns):
    """One call runs the next function of the list (each on its own weight copy)."""
    state = {"i": 0}

    def run():
        fns[state["i"] % len(fns)]()
        state["i"] += 1
    return run


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="Llama-3-8B only, M = 1, 128, 2048")
    parser.add_argument("--out", default=None)
    parser.add_argument("--kernels", default="whole,stream-K,ping-pong,sliced",
                        help="which of matmul_ws_kernel (whole), matmul_stream_k_kernel, matmul_pingpong_kernel and "
                             "matmul_sliced_kernel")
    parser.add_argument("--tokens", default=None, help="comma-separated M values (both models unless --quick)")
    parser.add_argument("--library", default=None, help="libtriton_jit_ops.so: also time its triton_jit::mm")
    parser.add_argument("--plot", metavar="GEMM_JSON", help="draw gemm.png beside a gemm.json and exit")
    options = parser.parse_args()
    if options.plot:
        with open(options.plot) as f:
            plot([tuple(r) for r in json.load(f)["rows"]], os.path.join(os.path.dirname(options.plot), "gemm.png"))
        return
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    kernels = runtime_kernels()
    if options.library:
        torch.ops.load_library(options.library)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    linears = {k: v for k, v in LINEARS.items() if not options.quick or k.startswith("llama")}
    tokens = [1, 128, 2048] if options.quick else TOKENS
    if options.tokens:
        tokens = [int(m) for m in options.tokens.split(",")]
    rows = []
    for name, (N, K) in linears.items():
        copies = max(1, min(8, (200 << 20) // (N * K * 2)))  # enough weight to leave L2 behind
        weights = [torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K**0.5 for _ in range(copies)]
        for M in tokens:
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            reference = (a.float() @ weights[0].float().t())
            cublas = triton.testing.do_bench_cudagraph(rotated([lambda w=w: torch.matmul(a, w.t(), out=c) for w in weights]))
            op = library_mm(a, weights, reference, name, M) if options.library else None
            best = None
            fastest = {}  # each kernel's fastest configuration, for the line below
            for label, cfg in configs(M, options.kernels.split(",")):
                try:
                    fns = [launcher(kernels, a, w, c, cfg, sms) for w in weights]
                    fns[0]()
                    torch.cuda.synchronize()
                    error = ((c.float() - reference).norm() / reference.norm()).item()
                    if not error < 2e-2:
                        print(f"  {name} M={M} {label}: WRONG (relative error {error:.3g})", flush=True)
                        continue
                    if hasattr(fns[0], "counts") and int(fns[0].counts.count_nonzero()) != 0:
                        print(f"  {name} M={M} {label}: WRONG (stream-K counts not back at zero)", flush=True)
                        continue
                    ms = triton.testing.do_bench_cudagraph(rotated(fns))
                except Exception as e:  # a config that does not compile or fit: the others still count
                    print(f"  {name} M={M} {label}: {type(e).__name__}: {str(e)[:200]}", flush=True)
                    continue
                if best is None or ms < best[0]:
                    best = (ms, label)
                family = ("stream-K" if cfg.get("stream_k") else "ping-pong" if cfg.get("pingpong") else
                          "sliced" if cfg.get("slices") else "whole")
                fastest[family] = min(fastest.get(family, ms), ms)
            flops = 2 * M * N * K
            if best is None:
                rows.append((name, M, None, cublas * 1e3, None, "none ran", op))
                continue
            rows.append((name, M, best[0] * 1e3, cublas * 1e3, flops / best[0] * 1e-9, best[1], op))
            families = ", ".join(f"{f} {ms * 1e3:.1f} us" for f, ms in fastest.items()) if len(fastest) > 1 else ""
            print(f"{name:>20} M={M:>5}: ours {best[0] * 1e3:8.1f} us ({best[1]}), cuBLAS {cublas * 1e3:8.1f} us, "
                  f"ours/cuBLAS {best[0] / cublas:5.2f}" + (f" [{families}]" if families else "") +
                  (f", triton_jit::mm {op:8.1f} us" if op is not None else ""), flush=True)
    lines = table(rows, with_op=bool(options.library))
    print("\n".join(lines))
    if options.out:
        os.makedirs(options.out, exist_ok=True)
        with open(os.path.join(options.out, "gemm.txt"), "w") as f:
            f.write(f"{torch.cuda.get_device_name(0)}, torch {torch.__version__}, triton {triton.__version__}\n")
            f.write("\n".join(lines) + "\n")
        with open(os.path.join(options.out, "gemm.json"), "w") as f:
            json.dump({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                       "triton": triton.__version__, "rows": rows}, f)
        try:
            plot(rows, os.path.join(options.out, "gemm.png"))
        except ImportError:
            print("no matplotlib here: draw gemm.png with --plot gemm.json", flush=True)


def library_mm(a, weights, reference, name, M):
    """The operator library's mm (its @triton.jit kernels; no stand-in routing) on the same rotated
    weights, in us; None where it fails or is wrong."""
    mm = torch.ops.triton_jit.mm
    try:
        out = mm(a, weights[0].t())  # compiles and tunes outside the graph
        torch.cuda.synchronize()
        error = ((out.float() - reference).norm() / reference.norm()).item()
        if not error < 2e-2:
            print(f"  {name} M={M} triton_jit::mm: WRONG (relative error {error:.3g})", flush=True)
            return None
        return triton.testing.do_bench_cudagraph(rotated([lambda w=w: mm(a, w.t()) for w in weights])) * 1e3
    except Exception as e:
        print(f"  {name} M={M} triton_jit::mm: {type(e).__name__}: {str(e)[:200]}", flush=True)
        return None


def table(rows, with_op):
    """The Markdown table of rows (and geomeans): ours (the Gluon kernels), the library's mm where
    timed (its @triton.jit kernels), cuBLAS."""
    op_head, op_rule = (" triton_jit::mm us | mm/cuBLAS |", "---|---|") if with_op else ("", "")
    lines = [f"| linear | M | ours us |{op_head} cuBLAS us | ours/cuBLAS | ours TFLOP/s | cuBLAS TFLOP/s | config |",
             f"|---|---|---|{op_rule}---|---|---|---|---|"]
    ratios, op_ratios = [], []
    for name, M, ours, theirs, tflops, label, *rest in rows:
        op = rest[0] if rest else None
        N, K = LINEARS[name]
        theirs_tflops = 2 * M * N * K / theirs * 1e-6
        op_cells = ""
        if with_op:
            op_cells = f" {op:.1f} | {op / theirs:.2f} |" if op is not None else " - | - |"
            if op is not None:
                op_ratios.append(op / theirs)
        if ours is None:
            lines.append(f"| {name} | {M} | - |{op_cells} {theirs:.1f} | - | - | {theirs_tflops:.0f} | {label} |")
            continue
        ratios.append(ours / theirs)
        lines.append(f"| {name} | {M} | {ours:.1f} |{op_cells} {theirs:.1f} | {ours / theirs:.2f} | {tflops:.0f} | "
                     f"{theirs_tflops:.0f} | {label} |")
    for label, values in (("ours", ratios), ("triton_jit::mm", op_ratios)):
        if values:
            geomean = torch.tensor(values).log().mean().exp().item()
            lines.append(f"\ngeomean {label}/cuBLAS: {geomean:.3f} over {len(values)} shapes")
    return lines


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    names = sorted({r[0] for r in rows})
    fig, axes = plt.subplots(2, (len(names) + 1) // 2, figsize=(4 * ((len(names) + 1) // 2), 7), squeeze=False)
    for ax, name in zip(axes.flat, names):
        mine = [r for r in rows if r[0] == name and r[2] is not None]
        N, K = LINEARS[name]
        ax.plot([r[1] for r in mine], [r[4] for r in mine], "o-", label="ours (Gluon)")
        ax.plot([r[1] for r in rows if r[0] == name], [2 * r[1] * N * K / r[3] * 1e-6 for r in rows if r[0] == name],
                "s--", label="cuBLAS")
        timed = [r for r in rows if r[0] == name and len(r) > 6 and r[6] is not None]
        if timed:
            ax.plot([r[1] for r in timed], [2 * r[1] * N * K / r[6] * 1e-6 for r in timed], "^:",
                    label="triton_jit::mm (@triton.jit)")
        ax.set_xscale("log", base=2)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("M (tokens)")
        ax.set_ylabel("TFLOP/s")
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


if __name__ == "__main__":
    main()
