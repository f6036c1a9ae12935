"""Liger-Kernel's autograd functions one by one, forward and backward, under
tests/python/library_calls.py's stand-in H200 (CPU tensors): per function, the kernels it
launched and any call this runtime refused; at the end, every kernel's cubins against Triton's.
Run as test_library_calls.py runs a scenario (the same environment), from the repository root:
    python measurements/library-calls/liger_ops.py [function ...]"""
import json
import os
import sys
import time

sys.path.insert(0, "tests/python")
import library_calls as lc  # noqa: E402
import torch  # noqa: E402

lc.stand_in_for_an_h200()
recorder = lc.Recorder()
recorder.intercept()
from liger_kernel.ops import (cross_entropy, fused_add_rms_norm, fused_linear_cross_entropy, geglu,  # noqa: E402
                              group_norm, jsd, kl_div, layer_norm, poly_norm, qwen2vl_mrope, rms_norm, rope, softmax,
                              sparsemax, swiglu, tvd)

bf = torch.bfloat16


def grad(*shape, dtype=bf):
    return torch.randn(*shape, dtype=dtype, requires_grad=True)


def backward(out):
    (out if out.dim() == 0 else out.float().sum()).backward()


B, T, H, D, V = 2, 8, 4, 64, 1000
cases = {
    "rms_norm": lambda: backward(rms_norm.LigerRMSNormFunction.apply(grad(16, 512), grad(512), 1e-6, 0.0, "gemma", False)),
    "fused_add_rms_norm": lambda: backward(fused_add_rms_norm.LigerFusedAddRMSNormFunction.apply(
        grad(16, 512), grad(16, 512), grad(512), 1e-6)[0]),
    "layer_norm": lambda: backward(layer_norm.LigerLayerNormFunction.apply(grad(16, 512), grad(512), grad(512), 1e-5)),
    "poly_norm": lambda: backward(poly_norm.LigerPolyNormFunction.apply(grad(16, 512), grad(3), grad(()), 1e-6, False)),
    "group_norm": lambda: backward(group_norm.LigerGroupNormFunction.apply(grad(2, 8, 64), grad(8), grad(8), 8, 4, 1e-5)),
    "swiglu": lambda: backward(swiglu.LigerSiLUMulFunction.apply(grad(16, 1024), grad(16, 1024))),
    "geglu": lambda: backward(geglu.LigerGELUMulFunction.apply(grad(16, 1024), grad(16, 1024))),
    "rope": lambda: backward(rope.LigerRopeFunction.apply(grad(B, H, T, D), grad(B, 2, T, D), torch.randn(1, T, D, dtype=bf),
                                                          torch.randn(1, T, D, dtype=bf))[0]),
    "qwen2vl_mrope": lambda: backward(qwen2vl_mrope.LigerQwen2VLMRopeFunction.apply(
        grad(B, H, T, D), grad(B, 2, T, D), torch.randn(3, 1, T, D, dtype=bf), torch.randn(3, 1, T, D, dtype=bf),
        [8, 12, 12])[0]),
    "softmax": lambda: backward(softmax.LigerSoftmaxFunction.apply(grad(16, 512))),
    "sparsemax": lambda: backward(sparsemax.LigerSparsemaxFunction.apply(grad(16, 512, dtype=torch.float32), -1)),
    "cross_entropy": lambda: backward(cross_entropy.LigerCrossEntropyFunction.apply(
        grad(16, V, dtype=torch.float32), torch.randint(0, V, (16,)), None)[0]),
    "fused_linear_cross_entropy": lambda: backward(fused_linear_cross_entropy.LigerFusedLinearCrossEntropyFunction.apply(
        grad(16, 256), grad(V, 256), torch.randint(0, V, (16,)))[0]),
    "jsd": lambda: backward(jsd.LigerJSDFunction.apply(grad(16, V, dtype=torch.float32).log_softmax(-1),
                                                       torch.randn(16, V).log_softmax(-1))),
    "kl_div": lambda: backward(kl_div.LigerKLDivLossFunction.apply(grad(16, V, dtype=torch.float32).log_softmax(-1),
                                                                   torch.randn(16, V).softmax(-1))),
    "tvd": lambda: backward(tvd.LigerTVDLossFunction.apply(grad(16, V, dtype=torch.float32).softmax(-1),
                                                           torch.randn(16, V).softmax(-1))),
}
for name in sys.argv[1:] or list(cases):
    calls_before, problems_before = dict(recorder.calls), len(recorder.problems)
    started = time.time()
    try:
        cases[name]()
        error = None
    except Exception as e:  # noqa: BLE001  (a call of this script's own making is reported, not raised)
        error = f"{type(e).__name__}: {str(e)[:200]}"
    print(json.dumps({"function": name, "s": round(time.time() - started, 1), "error": error,
                      "problems": [p[:1] + [p[2][:300]] for p in recorder.problems[problems_before:]],
                      "kernels": sorted(k for k in recorder.calls if recorder.calls[k] != calls_before.get(k, 0))}),
          flush=True)
report = recorder.compare(os.environ["TRITON_JIT_CACHE_DIR"])
bad = {k: v for k, v in report.items() if v["triton_found"] != v["triton"] or v["ours_explained"] != v["ours"]}
print("KERNELS", len(report), "MISMATCHED", json.dumps(bad))
