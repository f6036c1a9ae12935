"""FlagGems ops one by one under tests/python/library_calls.py's stand-in H200 (CPU tensors): per op, the
kernels it launched and any call this runtime refused; at the end, every kernel's cubins against
Triton's. Run as test_library_calls.py runs a scenario (the same environment).
    python measurements/library-calls/flaggems_ops.py [op ...]"""
import json
import os
import sys
import time
sys.path.insert(0, "tests/python")  # run from the repository root, TRITON_JIT_CACHE_DIR set
os.environ["ARCH"] = "sm_90"
import library_calls as lc
import torch
lc.stand_in_for_an_h200()
rec = lc.Recorder()
rec.intercept()
import flag_gems
from flag_gems import ops
from flag_gems.runtime import torch_device_fn
torch_device_fn.default_generators = torch.cuda.default_generators
bf = torch.bfloat16
x = torch.randn(64, 512, dtype=bf)
y = torch.randn(64, 512, dtype=bf)
i = torch.randint(0, 64, (32,))
cases = {
    "sum": lambda: ops.sum(x), "sum_dim": lambda: ops.sum_dim(x, [1]), "mean_dim": lambda: ops.mean_dim(x, [1]),
    "max_dim": lambda: ops.max_dim(x, 1), "amax": lambda: ops.amax(x, [1]), "argmax": lambda: ops.argmax(x, 1),
    "softmax": lambda: ops.softmax(x, 1, False), "log_softmax": lambda: ops.log_softmax(x, 1, False),
    "layer_norm": lambda: ops.layer_norm(x, [512], torch.ones(512, dtype=bf), torch.zeros(512, dtype=bf), 1e-5),
    "gelu": lambda: ops.gelu(x), "exp": lambda: ops.exp(x),
    "masked_fill": lambda: ops.masked_fill(x, x > 0, 0.0), "index_select": lambda: ops.index_select(x, 0, i),
    "gather": lambda: ops.gather(x, 1, torch.randint(0, 512, (64, 8))), "embedding": lambda: ops.embedding(x, i),
    "topk": lambda: ops.topk(x, 8, 1), "cumsum": lambda: ops.cumsum(x, 1), "sort": lambda: ops.sort(x, 1),
    "bmm": lambda: ops.bmm(torch.randn(4, 64, 64, dtype=bf), torch.randn(4, 64, 64, dtype=bf)),
    "addmm": lambda: ops.addmm(torch.randn(64, dtype=bf), x, torch.randn(512, 64, dtype=bf)),
    "mul_scalar": lambda: ops.mul(x, 2.0), "pow": lambda: ops.pow_tensor_scalar(x, 2),
    "sigmoid": lambda: ops.sigmoid(x), "tanh": lambda: ops.tanh(x), "rsqrt": lambda: ops.rsqrt(x.abs()),
    "clamp": lambda: ops.clamp(x, -1.0, 1.0), "transpose_copy": lambda: ops.add(x.t(), x.t()),
    "group_norm": lambda: ops.group_norm(torch.randn(2, 8, 16, dtype=bf), torch.ones(8, dtype=bf), torch.zeros(8, dtype=bf), 2, 8, 16, 4, 1e-5),
    "zeros": lambda: ops.zeros((64, 64), dtype=bf, device="cpu"),
    "full": lambda: ops.full((64,), 1.5, dtype=bf, device="cpu"), "eq": lambda: ops.eq(x, y), "isnan": lambda: ops.isnan(x),
    "all": lambda: ops.all(x > 0), "any": lambda: ops.any(x > 0), "prod": lambda: ops.prod(x.float()),
    "var_mean": lambda: ops.var_mean(x.float(), [1]), "vector_norm": lambda: ops.vector_norm(x.float()),
    "repeat": lambda: ops.repeat(x, (2, 1)), "flip": lambda: ops.flip(x, [1]), "tile": lambda: ops.tile(x, (2, 1)),
    "stack": lambda: ops.stack([x, y]), "hstack": lambda: ops.hstack([x, y]), "pad": lambda: ops.pad(x, [1, 1]),
    "triu": lambda: ops.triu(x), "mv": lambda: ops.mv(x, y[0]),
    "nonzero": lambda: ops.nonzero(x > 0), "unique": lambda: ops._unique2(i),
}
only = sys.argv[1:] or list(cases)
for name in only:
    before = {k: set(v) for k, v in rec.triton.items()}
    calls_before = dict(rec.calls); probs_before = len(rec.problems)
    t = time.time()
    try:
        cases[name]()
        err = None
    except Exception as e:
        err = f"{type(e).__name__}: {str(e)[:200]}"
    new_probs = rec.problems[probs_before:]
    print(json.dumps({"op": name, "s": round(time.time() - t, 1), "error": err, "problems": [p[:1] + [p[2][:300]] for p in new_probs],
                      "kernels": sorted(k for k in rec.calls if rec.calls[k] != calls_before.get(k, 0))}), flush=True)
report = rec.compare(os.environ["TRITON_JIT_CACHE_DIR"])
bad = {k: v for k, v in report.items() if v["triton_found"] != v["triton"] or v["ours_explained"] != v["ours"]}
print("KERNELS", len(report), "MISMATCHED", json.dumps(bad))
