"""The operator library against ATen eager on one GPU, every op at three sizes: small (the host
decides), medium, large (bandwidth- or compute-bound). Both sides are called the same way
(torch.ops.triton_jit.<op> against torch.ops.aten.<op>, or for fused ops the ATen ops they
replace), so that Python's share of the host time is the same.

GPU time: a CUDA graph of 20 calls, replayed, timed with CUDA events (median of 10 replays).
Host time: calls issued back to back without synchronising, per call (median of 5 runs).
Prints a table; --json writes every number. Targets (checked and printed): at the large size
each op's GPU time at most 1.1x ATen's and each family's geometric mean at most 1.0x; at the small
size our host time no more than ATen's."""
import argparse
import json
import math
import statistics
import time

import torch

T = torch.ops.triton_jit
A = torch.ops.aten
H200_BANDWIDTH = 4.8e12  # bytes/s


def rand(*shape, dtype=torch.bfloat16, low=-2.0, high=2.0):
    return (torch.rand(shape, device="cuda") * (high - low) + low).to(dtype)


def positive(*shape, dtype=torch.bfloat16):
    return rand(*shape, dtype=dtype).abs() + 0.125


def nbytes(*tensors):
    return sum(t.numel() * t.element_size() for t in tensors)


class Op:
    def __init__(self, family, name, make, ours, aten, traffic=None, flops=None):
        self.family, self.name, self.make, self.ours, self.aten = family, name, make, ours, aten
        self.traffic = traffic  # args -> bytes read and written (bandwidth-bound ops)
        self.flops = flops      # args -> floating-point operations (matmul)


POINTWISE_SIZES = {"small": (1024,), "medium": (1024, 1024), "large": (8192, 8192)}
ROWS = {"small": (8, 1024), "medium": (1024, 4096), "large": (8192, 8192)}
NORM_ROWS = {"small": (4, 4096), "medium": (512, 4096), "large": (16384, 4096)}
GATED = {"small": (4, 2 * 1024), "medium": (512, 2 * 4096), "large": (8192, 2 * 14336)}
MM = {"small": (16, 512, 512), "medium": (1024, 1024, 1024), "large": (4096, 4096, 4096)}
BMM = {"small": (4, 32, 64, 64), "medium": (32, 512, 512, 128), "large": (64, 1024, 1024, 128)}
TOKENS = {"small": 16, "medium": 1024, "large": 16384}
TOPK = {"small": (1, 32000), "medium": (64, 32000), "large": (512, 32000)}


def ops():
    out = []

    def binary(name, aten_name=None, nonzero=False, **kw):
        def make(size):
            x = rand(*POINTWISE_SIZES[size])
            y = rand(*POINTWISE_SIZES[size])
            if nonzero:
                y = torch.where(y.abs() < 0.25, torch.full_like(y, 0.5), y)
            return (x, y), kw
        packet, _, overload = name.partition(".")
        ours = getattr(getattr(T, packet), overload or "default")
        aten = getattr(getattr(A, packet), overload or "default")
        out.append(Op("pointwise", name + ("" if not kw else f"({kw})"), make, ours, aten,
                      traffic=lambda a: 3 * nbytes(a[0])))

    def unary(name, positive_input=False, **kw):
        def make(size):
            return ((positive if positive_input else rand)(*POINTWISE_SIZES[size]),), kw
        out.append(Op("pointwise", name + ("" if not kw else f"({kw})"), make, getattr(T, name).default,
                      getattr(A, name).default, traffic=lambda a: 2 * nbytes(a[0])))

    for name in ("add.Tensor", "sub.Tensor", "mul.Tensor", "maximum", "minimum"):
        binary(name)
    binary("div.Tensor", nonzero=True)
    binary("div.Tensor_mode", nonzero=True, rounding_mode="floor")
    binary("remainder.Tensor", nonzero=True)
    out.append(Op("pointwise", "add.Scalar", lambda s: ((rand(*POINTWISE_SIZES[s]), 2.5), {}), T.add.Scalar,
                  A.add.Scalar, traffic=lambda a: 2 * nbytes(a[0])))
    out.append(Op("pointwise", "where.self",
                  lambda s: ((rand(*POINTWISE_SIZES[s]) > 0, rand(*POINTWISE_SIZES[s]), rand(*POINTWISE_SIZES[s])), {}),
                  T.where.self, A.where.self, traffic=lambda a: nbytes(*a) + nbytes(a[1])))
    for name in ("neg", "abs", "exp", "sigmoid", "tanh", "relu", "silu"):
        unary(name)
    for name in ("log", "sqrt", "rsqrt"):
        unary(name, positive_input=True)
    unary("gelu")
    unary("gelu", approximate="tanh")

    # fused: against the ATen ops they replace
    def gated_make(size):
        return (rand(*GATED[size]),), {}

    def silu_mul_aten(x):
        d = x.shape[-1] // 2
        return A.mul.Tensor(A.silu.default(x[..., :d]), x[..., d:])

    def gelu_mul_aten(x):
        d = x.shape[-1] // 2
        return A.mul.Tensor(A.gelu.default(x[..., :d], approximate="tanh"), x[..., d:])

    out.append(Op("fused", "silu_and_mul", gated_make, T.silu_and_mul.default, silu_mul_aten,
                  traffic=lambda a: nbytes(a[0]) * 3 // 2))
    out.append(Op("fused", "gelu_and_mul(tanh)", gated_make, lambda x: T.gelu_and_mul.default(x, "tanh"), gelu_mul_aten,
                  traffic=lambda a: nbytes(a[0]) * 3 // 2))

    def add_norm_make(size):
        rows, dim = NORM_ROWS[size]
        return (rand(rows, dim), rand(rows, dim), rand(dim), 1e-6), {}

    def add_norm_aten(x, residual, weight, eps):
        r = A.add.Tensor(x, residual)
        return A.rms_norm.default(r, [r.shape[-1]], weight, eps), r

    out.append(Op("fused", "fused_add_rms_norm", add_norm_make, T.fused_add_rms_norm.default, add_norm_aten,
                  traffic=lambda a: 4 * nbytes(a[0])))

    def rotary_make(size):
        tokens = TOKENS[size]
        angles = torch.rand(max(tokens, 128), 64, device="cuda")
        return (rand(tokens, 32, 128), torch.cos(angles), torch.sin(angles)), {}

    def rotary_aten(x, cos, sin):
        t = x.shape[0]
        c = cos[:t].unsqueeze(1).to(x.dtype)
        s = sin[:t].unsqueeze(1).to(x.dtype)
        x1, x2 = x[..., :64], x[..., 64:]
        return A.cat.default([x1 * c - x2 * s, x2 * c + x1 * s], -1)

    out.append(Op("fused", "rotary_embedding", rotary_make, T.rotary_embedding.default, rotary_aten,
                  traffic=lambda a: 2 * nbytes(a[0])))

    # reductions
    def reduce_make(dim):
        def make(size):
            return (rand(*ROWS[size]), [dim]), {}
        return make

    out.append(Op("reduction", "sum(dim=-1)", reduce_make(-1), T.sum.dim_IntList, A.sum.dim_IntList,
                  traffic=lambda a: nbytes(a[0])))
    out.append(Op("reduction", "sum(dim=0)", reduce_make(0), T.sum.dim_IntList, A.sum.dim_IntList,
                  traffic=lambda a: nbytes(a[0])))
    out.append(Op("reduction", "mean(dim=-1)", reduce_make(-1), T.mean.dim, A.mean.dim, traffic=lambda a: nbytes(a[0])))
    out.append(Op("reduction", "amax(dim=-1)", reduce_make(-1), T.amax.default, A.amax.default,
                  traffic=lambda a: nbytes(a[0])))
    for name in ("max", "min"):
        out.append(Op("reduction", f"{name}.dim(-1)", lambda s: ((rand(*ROWS[s]), -1), {}), getattr(T, name).dim,
                      getattr(A, name).dim, traffic=lambda a: nbytes(a[0])))
    out.append(Op("reduction", "argmax(-1)", lambda s: ((rand(*ROWS[s]), -1), {}), T.argmax.default, A.argmax.default,
                  traffic=lambda a: nbytes(a[0])))
    out.append(Op("reduction", "softmax(-1)", lambda s: ((rand(*ROWS[s]), -1, False), {}), T._softmax.default,
                  A._softmax.default, traffic=lambda a: 2 * nbytes(a[0])))
    out.append(Op("reduction", "log_softmax(-1)", lambda s: ((rand(*ROWS[s]), -1, False), {}), T._log_softmax.default,
                  A._log_softmax.default, traffic=lambda a: 2 * nbytes(a[0])))
    out.append(Op("reduction", "softmax(0)", lambda s: ((rand(*ROWS[s]), 0, False), {}), T._softmax.default,
                  A._softmax.default, traffic=lambda a: 2 * nbytes(a[0])))

    # norms
    def norm_make(size):
        rows, dim = NORM_ROWS[size]
        return (rand(rows, dim), [dim], rand(dim), rand(dim), 1e-5), {}

    out.append(Op("norm", "layer_norm", norm_make, T.layer_norm.default, A.layer_norm.default,
                  traffic=lambda a: 2 * nbytes(a[0])))
    out.append(Op("norm", "rms_norm", lambda s: (norm_make(s)[0][:3] + (1e-6,), {}), T.rms_norm.default,
                  A.rms_norm.default, traffic=lambda a: 2 * nbytes(a[0])))

    # matmul
    def mm_make(size):
        m, k, n = MM[size]
        return (rand(m, k, low=-1, high=1), rand(k, n, low=-1, high=1)), {}

    out.append(Op("matmul", "mm", mm_make, T.mm.default, A.mm.default,
                  flops=lambda a: 2 * a[0].shape[0] * a[0].shape[1] * a[1].shape[1]))

    def addmm_make(size):
        (x, w), _ = mm_make(size)
        return (rand(w.shape[1]), x, w), {}

    out.append(Op("matmul", "addmm", addmm_make, T.addmm.default, A.addmm.default,
                  flops=lambda a: 2 * a[1].shape[0] * a[1].shape[1] * a[2].shape[1]))

    def bmm_make(size):
        b, m, n, k = BMM[size]
        return (rand(b, m, k, low=-1, high=1), rand(b, k, n, low=-1, high=1)), {}

    out.append(Op("matmul", "bmm", bmm_make, T.bmm.default, A.bmm.default,
                  flops=lambda a: 2 * a[0].shape[0] * a[0].shape[1] * a[0].shape[2] * a[1].shape[2]))

    # indexing
    def embedding_make(size):
        return (rand(32000, 4096), torch.randint(0, 32000, (TOKENS[size],), device="cuda")), {}

    out.append(Op("index", "embedding", embedding_make, T.embedding.default, A.embedding.default,
                  traffic=lambda a: 2 * a[1].numel() * a[0].shape[1] * a[0].element_size()))

    def index_select_make(size):
        rows, dim = ROWS[size]
        return (rand(rows, dim), 0, torch.randint(0, rows, (rows // 2,), device="cuda")), {}

    out.append(Op("index", "index_select", index_select_make, T.index_select.default, A.index_select.default,
                  traffic=lambda a: a[2].numel() * a[0].shape[1] * a[0].element_size() * 2))

    def gather_make(size):
        rows, dim = ROWS[size]
        return (rand(rows, dim), 1, torch.randint(0, dim, (rows, dim // 2), device="cuda")), {}

    out.append(Op("index", "gather", gather_make, T.gather.default, A.gather.default,
                  traffic=lambda a: a[2].numel() * (2 * a[0].element_size() + 8)))

    def cat_make(size):
        rows, dim = ROWS[size]
        return ([rand(rows, dim // 2), rand(rows, dim // 2)], -1), {}

    out.append(Op("index", "cat", cat_make, T.cat.default, A.cat.default, traffic=lambda a: 2 * nbytes(*a[0])))

    def topk_make(size):
        return (rand(*TOPK[size], dtype=torch.float32), 50), {}

    out.append(Op("index", "topk(k=50)", topk_make, T.topk.default, A.topk.default, traffic=lambda a: nbytes(a[0])))
    return out


def gpu_ms(fn, args, kwargs):
    """Per call: a CUDA graph of 20 calls, replayed 10 times (median); eager with events if the
    op cannot be captured."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(stream):
        for _ in range(3):
            fn(*args, **kwargs)
    torch.cuda.current_stream().wait_stream(stream)
    torch.cuda.synchronize()
    calls = 20
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn(*args, **kwargs)
        run = graph.replay
    except Exception:  # noqa: BLE001 - fall back to eager launches
        torch.cuda.synchronize()

        def run():
            for _ in range(calls):
                fn(*args, **kwargs)
    times = []
    for _ in range(10):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def host_us(fn, args, kwargs, calls=200):
    runs = []
    for _ in range(5):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(calls):
            fn(*args, **kwargs)
        runs.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(runs)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", required=True)
    parser.add_argument("--json")
    parser.add_argument("--only", help="substring of the op names to run")
    options = parser.parse_args()
    torch.ops.load_library(options.library)
    torch.manual_seed(0)
    rows = []
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}, bfloat16 unless noted")
    print(f"{'op':<28}{'size':<8}{'ours us':>10}{'ATen us':>10}{'ratio':>7}{'host ours':>11}{'host ATen':>11}"
          f"{'ratio':>7}  {'achieved':<14}")
    for op in ops():
        if options.only and options.only not in op.name:
            continue
        for size in ("small", "medium", "large"):
            args, kwargs = op.make(size)
            ours_fn = op.ours if not kwargs else (lambda *a, _f=op.ours, _k=kwargs: _f(*a, **_k))
            aten_fn = op.aten if not kwargs else (lambda *a, _f=op.aten, _k=kwargs: _f(*a, **_k))
            try:
                ours_ms = gpu_ms(ours_fn, args, {})
                aten_ms = gpu_ms(aten_fn, args, {})
                ours_host = host_us(ours_fn, args, {})
                aten_host = host_us(aten_fn, args, {})
            except Exception as e:  # noqa: BLE001 - reported in the table
                print(f"{op.name:<28}{size:<8} failed: {type(e).__name__}: {str(e)[:120]}")
                rows.append({"family": op.family, "op": op.name, "size": size, "error": str(e)[:500]})
                continue
            achieved = ""
            if op.flops:
                achieved = f"{op.flops(args) / (ours_ms * 1e-3) / 1e12:.1f} TFLOP/s"
                aten_achieved = op.flops(args) / (aten_ms * 1e-3) / 1e12
                achieved += f" (ATen {aten_achieved:.1f})"
            elif op.traffic:
                gbs = op.traffic(args) / (ours_ms * 1e-3) / 1e9
                achieved = f"{gbs:.0f} GB/s ({100 * gbs * 1e9 / H200_BANDWIDTH:.0f}%)"
            row = {"family": op.family, "op": op.name, "size": size, "ours_us": ours_ms * 1e3,
                   "aten_us": aten_ms * 1e3, "gpu_ratio": ours_ms / aten_ms, "ours_host_us": ours_host,
                   "aten_host_us": aten_host, "host_ratio": ours_host / aten_host, "achieved": achieved}
            rows.append(row)
            print(f"{op.name:<28}{size:<8}{row['ours_us']:>10.2f}{row['aten_us']:>10.2f}{row['gpu_ratio']:>7.2f}"
                  f"{ours_host:>11.2f}{aten_host:>11.2f}{row['host_ratio']:>7.2f}  {achieved}")
    good = [r for r in rows if "error" not in r]
    large = [r for r in good if r["size"] == "large"]
    small = [r for r in good if r["size"] == "small"]
    print("\nTargets")
    over = [r for r in large if r["gpu_ratio"] > 1.1]
    print(f"  large size, GPU time <= 1.1x ATen: {len(large) - len(over)}/{len(large)} met"
          + (": missed by " + ", ".join(f"{r['op']} {r['gpu_ratio']:.2f}x" for r in over) if over else ""))
    for family in sorted({r["family"] for r in large}):
        ratios = [r["gpu_ratio"] for r in large if r["family"] == family]
        mean = math.exp(sum(math.log(x) for x in ratios) / len(ratios))
        print(f"  large size, {family} geometric mean <= 1.0x: {mean:.2f}x {'met' if mean <= 1.0 else 'missed'}")
    slow_host = [r for r in small if r["host_ratio"] > 1.0]
    print(f"  small size, host time <= ATen's: {len(small) - len(slow_host)}/{len(small)} met"
          + (": missed by " + ", ".join(f"{r['op']} {r['host_ratio']:.2f}x" for r in slow_host) if slow_host else ""))
    failed = [r for r in rows if "error" in r]
    if failed:
        print(f"  {len(failed)} measurements failed")
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
