"""The Gluon ping-pong attention on batches of short sequences, with its blocks and stages varied:
which launch_config keeps more than one program per SM busy where each has few key blocks.
Through Triton's own launch, CUDA-graph timed, beside SDPA's default.

    python3 measurements/gluon/short_sequence_sweep.py
"""
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

import torch  # noqa: E402

import gluon_attention as ga  # noqa: E402

CONFIGS = [dict(BLOCK_M=128, BLOCK_N=128, NUM_STAGES=3), dict(BLOCK_M=128, BLOCK_N=128, NUM_STAGES=2),
           dict(BLOCK_M=128, BLOCK_N=64, NUM_STAGES=3), dict(BLOCK_M=128, BLOCK_N=64, NUM_STAGES=2)]


def main():
    heads, kv_heads, d = 32, 8, 128
    print(torch.cuda.get_device_name(0), flush=True)
    names = [f"m{c['BLOCK_M']}n{c['BLOCK_N']}s{c['NUM_STAGES']}" for c in CONFIGS]
    print("batch x seq causal  sdpa_us  " + "  ".join(f"{name:>9}" for name in names), flush=True)
    for batch, n in ((16, 1024), (32, 512), (64, 256), (128, 128), (1, 4096)):
        for causal in (False, True):
            q, k, v, cu_q, cu_k = ga.make_inputs([n] * batch, [n] * batch, heads, kv_heads, d, torch.bfloat16)
            scale = 1.0 / math.sqrt(d)
            q4 = q.view(batch, n, heads, d).transpose(1, 2).contiguous()
            k4 = k.view(batch, n, kv_heads, d).transpose(1, 2).contiguous()
            v4 = v.view(batch, n, kv_heads, d).transpose(1, 2).contiguous()
            sdpa, _ = ga.sdpa_runner(q4, k4, v4, causal, "default")
            base = ga.bench_one(sdpa)
            o = torch.empty_like(q)
            cells = []
            for cfg in CONFIGS:
                run = dict(cfg, num_warps=cfg["BLOCK_M"] // 32)
                try:
                    ms = ga.bench_one(lambda: ga.gluon_attention(q, k, v, cu_q, cu_k, n, causal, scale, out=o,
                                                                 kernel="pingpong", config=run))
                    cells.append(f"{ms / base:5.2f}x")
                except Exception as e:  # noqa: BLE001 - a config that does not fit
                    cells.append(f"{type(e).__name__[:8]:>6}")
            print(f"{batch:>5} x {n:<5} {int(causal):>3} {base * 1e3:8.1f}  " + "  ".join(f"{c:>9}" for c in cells),
                  flush=True)


if __name__ == "__main__":
    main()
