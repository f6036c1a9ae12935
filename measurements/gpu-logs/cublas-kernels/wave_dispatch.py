"""The library's mm at 65-512 rows (matmul_wave.py where its widest tile makes one wave, the
persistent kernel otherwise) through the dispatcher against torch.mm, at Llama-3-8B's projection
shapes, weights rotated past L2, each result checked against an fp32 product first.

  python docs/gpu-logs/cublas-kernels/wave_dispatch.py build/lib/libtriton_jit_ops-torch*.so [--repeat 2]"""
import argparse
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "ops"))
import sweep_kernels as sk  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("library")
    parser.add_argument("--rows", default="100,128,256,384,512")
    parser.add_argument("--linears", default="qkv,o,down,gate_up,lm_head")
    parser.add_argument("--repeat", type=int, default=2, help="timings of each side, alternated")
    args = parser.parse_args()
    torch.ops.load_library(args.library)
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), "torch", torch.__version__, flush=True)
    print(f"{'product':<26}{'ours µs':>16}{'cuBLAS µs':>16}{'ratio':>7}  error", flush=True)
    for name in args.linears.split(","):
        n, k = sk.LINEARS[name]
        weights, next_weight = sk.rotation(lambda: torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02,
                                           n * k * 2)
        for m in (int(r) for r in args.rows.split(",")):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            got = torch.ops.triton_jit.mm(x, weights[0].t())
            err = sk.rel_error(got, x.float() @ weights[0].float().t())
            assert err < 2e-2, (name, m, err)
            ours, aten = [], []
            for _ in range(args.repeat):
                ours.append(sk.gpu_us(lambda: torch.ops.triton_jit.mm(x, next_weight().t())))
                aten.append(sk.gpu_us(lambda: torch.mm(x, next_weight().t())))
            o, a = min(ours), min(aten)
            print(f"{name + f' {m}x{k}x{n}':<26}{'/'.join(f'{v:.1f}' for v in ours):>16}"
                  f"{'/'.join(f'{v:.1f}' for v in aten):>16}{o / a:7.2f}  {err:.1e}", flush=True)
        del weights
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
