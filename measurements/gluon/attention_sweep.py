"""Block sizes and stages of the Gluon prefill attention, swept on a Hopper GPU: each candidate
checked on a varlen causal batch against the float32 reference, then timed at 1k, 4k and 16k
tokens (causal and not, 32/8 heads, d=128, bf16) beside SDPA's default backend. The winners go
into attention_gluon.launch_config.
    python3 measurements/gluon/attention_sweep.py [--dims 128] [--lengths 1024 4096 16384]
"""
import argparse
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import gluon_attention as ac  # noqa: E402

CANDIDATES = {  # head dim: (BLOCK_N, NUM_STAGES) to try
    64: [(128, 3), (128, 4), (64, 4), (128, 2)],
    128: [(128, 2), (128, 3), (64, 3), (64, 4), (64, 2)],
    256: [(64, 2), (32, 3), (32, 4)],
}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dims", type=int, nargs="+", default=[128])
    parser.add_argument("--lengths", type=int, nargs="+", default=[1024, 4096, 16384])
    parser.add_argument("--kernels", nargs="+", default=["pingpong", "ws"])
    args = parser.parse_args()
    heads, kv_heads, dtype = 32, 8, torch.bfloat16
    for d in args.dims:
        sdpa = {}
        for n in args.lengths:
            for causal in (False, True):
                q, k, v, _, _ = ac.make_inputs([n], [n], heads, kv_heads, d, dtype)
                q4 = q.view(1, n, heads, d).transpose(1, 2).contiguous()
                k4 = k.view(1, n, kv_heads, d).transpose(1, 2).contiguous()
                v4 = v.view(1, n, kv_heads, d).transpose(1, 2).contiguous()
                sdpa[n, causal] = ac.bench_one(ac.sdpa_runner(q4, k4, v4, causal, "default")[0])
        ac.log(f"d={d}: SDPA default " + ", ".join(f"{n}{'c' if c else ''} {ms * 1e3:.1f} us"
                                                   for (n, c), ms in sdpa.items()))
        for kernel in args.kernels:
            base = ac.attention_gluon.launch_config(d, 2, False, 4096, kernel == "pingpong")
            for block_n, stages in CANDIDATES[d]:
                cfg = dict(base, BLOCK_N=block_n, NUM_STAGES=stages)
                label = f"{kernel} d={d} BLOCK_N={block_n} stages={stages}"
                try:
                    if ac.check_case((kernel, ), "varlen", [1, 17, 300, 1000], [1, 17, 300, 1000], heads, kv_heads,
                                     d, dtype, True, config=cfg):
                        continue
                    cells = []
                    for n in args.lengths:
                        for causal in (False, True):
                            q, k, v, cu_q, cu_k = ac.make_inputs([n], [n], heads, kv_heads, d, dtype)
                            o = torch.empty_like(q)
                            ms = ac.bench_one(lambda: ac.gluon_attention(q, k, v, cu_q, cu_k, n, causal,
                                                                         1 / math.sqrt(d), out=o, kernel=kernel,
                                                                         config=cfg))
                            cells.append(f"{n}{'c' if causal else ''} {ms * 1e3:.1f} ({ms / sdpa[n, causal]:.2f})")
                    ac.log(f"{label}: " + ", ".join(cells))
                except Exception as e:  # noqa: BLE001 - a candidate that does not fit or compile
                    ac.faulthandler.cancel_dump_traceback_later()
                    ac.log(f"{label}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")


if __name__ == "__main__":
    main()
