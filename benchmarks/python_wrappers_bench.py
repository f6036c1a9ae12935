"""Real libraries' Python wrappers, unedited, on Triton's launch and with `triton_jit.install()`:
the results compared, and the host time per call side by side (small inputs, so that the host
path is what is timed). Liger-Kernel's ops, flash-attention's Triton ops (its norms, rotary) and
fla's Gluon backends, whose kernels must each be served by this runtime under install(). A
library that is not importable is named as skipped. flash-attention's package imports its CUDA
extension, so its Triton ops are loaded from its sources (--flash-attn-src: the folder holding
`flash_attn/`, e.g. an unpacked sdist) as a package of those files alone, unmodified.

    python benchmarks/python_wrappers_bench.py [--flash-attn-src DIR] [--rounds 7] [--calls 200] [--json FILE]
                                               [--library NAME]
"""
import argparse
import importlib
import json
import os
import statistics
import sys
import time
import types

import torch

import triton_jit


def _flash_attn(src):
    """flash_attn.ops.triton's modules from `src`, without the package's CUDA extension."""
    if src:
        package = types.ModuleType("flash_attn")
        package.__path__ = [os.path.join(src, "flash_attn")]
        sys.modules.setdefault("flash_attn", package)
    return (importlib.import_module("flash_attn.ops.triton.layer_norm"),
            importlib.import_module("flash_attn.ops.triton.rotary"))


def _leaf(t):
    return t.detach().clone().requires_grad_(True)


def _forward_backward(fn, *tensors):
    """A wrapper's forward and backward: its output and every input's gradient."""
    leaves = [_leaf(t) if t.is_floating_point() else t for t in tensors]
    out = fn(*leaves)
    out = out[0] if isinstance(out, tuple) else out
    out.backward(torch.ones_like(out))
    return [out.detach()] + [t.grad for t in leaves if t.is_floating_point() and t.grad is not None]


def cases(flash_attn_src):
    """(library, wrapper, function of no arguments returning the tensors to compare, exact?)"""
    dev = "cuda"
    made, skipped = [], []
    bf16 = dict(device=dev, dtype=torch.bfloat16)
    try:
        from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
        from liger_kernel.ops.geglu import LigerGELUMulFunction
        from liger_kernel.ops.layer_norm import LigerLayerNormFunction
        from liger_kernel.ops.rms_norm import LigerRMSNormFunction
        from liger_kernel.ops.rope import LigerRopeFunction
        from liger_kernel.ops.swiglu import LigerSiLUMulFunction
        x, w, b = torch.randn(4, 512, **bf16), torch.randn(512, **bf16), torch.randn(512, **bf16)
        a, g = torch.randn(4, 1024, **bf16), torch.randn(4, 1024, **bf16)
        q, k = torch.randn(1, 8, 4, 64, **bf16), torch.randn(1, 2, 4, 64, **bf16)
        cos, sin = torch.randn(1, 4, 64, **bf16), torch.randn(1, 4, 64, **bf16)
        logits, target = torch.randn(4, 4096, device=dev), torch.randint(0, 4096, (4,), device=dev)
        made += [
            ("liger", "rms_norm fwd+bwd", lambda: _forward_backward(lambda x, w: LigerRMSNormFunction.apply(
                x, w, 1e-6, 0.0, "llama", False), x, w), True),
            # its forward alone (no dtype constexpr) beside the whole: where the time goes if one is slower
            ("liger", "rms_norm fwd", lambda: [LigerRMSNormFunction.apply(x, w, 1e-6, 0.0, "llama", False)], True),
            ("liger", "layer_norm fwd+bwd", lambda: _forward_backward(lambda x, w, b: LigerLayerNormFunction.apply(
                x, w, b, 1e-6), x, w, b), True),
            ("liger", "swiglu fwd+bwd", lambda: _forward_backward(LigerSiLUMulFunction.apply, a, g), True),
            ("liger", "geglu fwd+bwd", lambda: _forward_backward(LigerGELUMulFunction.apply, a, g), True),
            ("liger", "rope fwd+bwd", lambda: _forward_backward(
                lambda q, k: LigerRopeFunction.apply(q, k, cos, sin)[0], q, k), True),
            ("liger", "cross_entropy fwd+bwd", lambda: _forward_backward(
                lambda z: LigerCrossEntropyFunction.apply(z, target, None)[0], logits), True),
        ]
    except ImportError as error:
        skipped.append(("liger", str(error)))
    try:
        layer_norm, rotary = _flash_attn(flash_attn_src)
        x, w, b = torch.randn(4, 512, **bf16), torch.randn(512, **bf16), torch.randn(512, **bf16)
        r = torch.randn(2, 16, 8, 64, **bf16)
        cos, sin = torch.randn(16, 32, **bf16), torch.randn(16, 32, **bf16)
        made += [
            ("flash-attn", "layer_norm_fn fwd+bwd", lambda: _forward_backward(
                lambda x, w, b: layer_norm.layer_norm_fn(x, w, b, eps=1e-6), x, w, b), False),
            ("flash-attn", "rms_norm_fn fwd+bwd", lambda: _forward_backward(
                lambda x, w: layer_norm.rms_norm_fn(x, w, None, eps=1e-6), x, w), False),
            ("flash-attn", "apply_rotary", lambda: [rotary.apply_rotary(r, cos, sin)], True),
        ]
    except (ImportError, AttributeError) as error:
        skipped.append(("flash-attn", str(error)))
    try:
        made += _fla_gluon(dev)
    except ImportError as error:
        skipped.append(("fla gluon", str(error)))
    return made, skipped


# (library, wrapper) -> kernel objects it must find served by this runtime under install(), not left to Triton's.
MUST_SERVE = {}


def _fla_gluon(dev):
    """fla's Gluon backends (@gluon.jit kernels; fla takes them with FLA_GLUON=1) through fla's own
    entry points: Sinkhorn, the causal convolution, cross entropy, and AttnRes, whose kernels are
    autotuned and take the residual sources as a tuple of tensors."""
    os.environ["FLA_GLUON"] = "1"
    from fla.modules.causal_conv1d import causal_conv1d
    from fla.modules.causal_conv1d.backends import gluon as conv
    from fla.modules.fused_cross_entropy import cross_entropy_loss
    from fla.modules.fused_cross_entropy import gluon as ce
    from fla.ops.attnres import fused_attnres
    from fla.ops.attnres.backends import gluon as attnres
    from fla.ops.utils.sinkhorn import gluon as sk
    from fla.ops.utils.sinkhorn import sinkhorn
    bf16 = dict(device=dev, dtype=torch.bfloat16)
    m = torch.randn(64, 4, 4, device=dev)
    x, w, b = torch.randn(2, 100, 256, **bf16), torch.randn(256, 4, **bf16), torch.randn(256, **bf16)
    logits, target = torch.randn(8, 32000, **bf16), torch.randint(0, 32000, (8,), device=dev)
    residuals = [torch.randn(2, 64, 512, **bf16) for _ in range(3)]
    query, rms = torch.randn(512, **bf16), torch.randn(512, **bf16)
    MUST_SERVE["fla gluon", "sinkhorn fwd+bwd"] = [sk.sinkhorn_fwd_kernel, sk.sinkhorn_bwd_kernel]
    MUST_SERVE["fla gluon", "causal_conv1d fwd+bwd"] = [conv.causal_conv1d_fwd_kernel, conv.causal_conv1d_bwd_kernel]
    MUST_SERVE["fla gluon", "cross_entropy fwd+bwd"] = [ce.cross_entropy_fwd_kernel_gluon,
                                                        ce.cross_entropy_bwd_kernel_gluon,
                                                        ce.cross_entropy_fwd_kernel_reduce_gluon]
    MUST_SERVE["fla gluon", "attnres fwd+bwd"] = [attnres.attnres_fwd_kernel_gluon,
                                                  attnres.attnres_bwd_kernel_dv_gluon,
                                                  attnres.attnres_bwd_kernel_dqdw_gluon]
    return [
        ("fla gluon", "sinkhorn fwd+bwd", lambda: _forward_backward(lambda m: sinkhorn(m, 10), m), True),
        ("fla gluon", "causal_conv1d fwd+bwd", lambda: _forward_backward(
            lambda x, w, b: causal_conv1d(x, w, b, activation="silu")[0], x, w, b), True),
        ("fla gluon", "cross_entropy fwd+bwd", lambda: _forward_backward(
            lambda z: cross_entropy_loss(z, target)[0], logits), True),
        # autotuned: each launch path tunes for itself, and may choose another block of tokens
        ("fla gluon", "attnres fwd+bwd", lambda: _forward_backward(
            lambda q, w, *r: fused_attnres(q, list(r), w), query, rms, *residuals), False),
    ]


def per_call_us(fn, calls):
    torch.cuda.synchronize()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - start) / calls * 1e6


def same(a, b, exact):
    if len(a) != len(b):
        return False
    if exact:
        return all(torch.equal(x, y) for x, y in zip(a, b))
    return all(torch.allclose(x.float(), y.float(), rtol=1e-2, atol=1e-2) for x, y in zip(a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flash-attn-src", help="the folder holding flash-attention's flash_attn/ sources")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--json")
    parser.add_argument("--library", help="only this library's wrappers (e.g. 'fla gluon')")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("python_wrappers_bench: skipped: no GPU on this machine")
        return 0
    made, skipped = cases(args.flash_attn_src)
    if args.library:
        made = [case for case in made if case[0] == args.library]
    for library, why in skipped:
        print(f"skipped {library}: {why}")
    rows = []
    for library, name, fn, exact in made:
        triton_jit.uninstall()
        try:
            for _ in range(3):
                theirs = fn()  # compiles and tunes on Triton's launch
        except Exception as error:  # the library's own API, not this runtime: said, and the rest go on
            skipped.append((f"{library} {name}", f"fails on Triton's own launch: {error}"))
            print(f"skipped {library} {name}: fails on Triton's own launch: {error}")
            continue
        triton_jit.install()
        for _ in range(3):
            ours = fn()  # and on this runtime: an error here is ours, and ends the run
        from triton_jit import redirect  # which kernels install() served (uninstall() forgets)
        unserved = [getattr(k, "__name__", None) or k.fn.__name__ for k in MUST_SERVE.get((library, name), [])
                    if redirect.served(k) in (None, redirect._NOT_SEEN)]
        times = {"triton": [], "install": []}
        for installed in (False, True):  # one untimed round each way: allocator, caches and clocks settle
            (triton_jit.install if installed else triton_jit.uninstall)()
            per_call_us(fn, args.calls)
        for _ in range(args.rounds):  # the two take turns, so drift falls on both
            triton_jit.uninstall()
            times["triton"].append(per_call_us(fn, args.calls))
            triton_jit.install()
            times["install"].append(per_call_us(fn, args.calls))
        triton_jit.uninstall()
        t, i = statistics.median(times["triton"]), statistics.median(times["install"])
        paired = [a / b for a, b in zip(times["triton"], times["install"])]  # each round's own ratio
        rows.append(dict(library=library, wrapper=name, triton_us=t, install_us=i, speedup=t / i,
                         round_speedups=paired, results_equal=same(theirs, ours, exact), exact=exact,
                         left_to_triton=unserved))
    print(f"\nhost time per call, µs: median of {args.rounds} alternating rounds of {args.calls} calls")
    print("| library | wrapper | Triton's launch | install() | speedup | each round's | results |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        results = ("equal" if r["exact"] else "close") if r["results_equal"] else "DIFFER"
        if r["left_to_triton"]:
            results += " (left to Triton's launch: " + ", ".join(r["left_to_triton"]) + ")"
        print(f"| {r['library']} | {r['wrapper']} | {r['triton_us']:.1f} | {r['install_us']:.1f} | "
              f"{r['speedup']:.2f}x | {min(r['round_speedups']):.2f}-{max(r['round_speedups']):.2f}x | {results} |")
    if rows:
        geomean = statistics.geometric_mean(r["speedup"] for r in rows)
        print(f"geomean speedup {geomean:.2f}x; slowest {min(r['speedup'] for r in rows):.2f}x")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(dict(rows=rows, skipped=skipped), f, indent=1)
    return 0 if all(r["results_equal"] and not r["left_to_triton"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
