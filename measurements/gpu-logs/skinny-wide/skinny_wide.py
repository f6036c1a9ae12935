"""Does the decode kernel (matmul_skinny.py: C^T = B^T A^T, a program per weight column block, K
walked once) carry past 64 rows? At 128 to 512 rows the persistent TMA kernel loses to cuBLAS by
wave quantisation (few 128-wide tiles for 132 SMs) while the product is still near the weight's
bandwidth; the skinny layout spreads the weight over 64-256 programs whatever M is. Times here
the skinny kernel with a 128- or 256-token tile, unsplit and with K split, over a small tuning
space, beside cuBLAS and the library's persistent kernel, weights rotated past L2.

  python docs/gpu-logs/skinny-wide/skinny_wide.py [--rows 128,256,512] [--linears qkv,o,down,gate_up]"""
import argparse
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "ops"))
import sweep_kernels as sk  # noqa: E402

SKINNY = [(32, 128, 4, 4), (32, 64, 4, 6), (64, 64, 4, 6), (64, 128, 4, 4), (64, 128, 8, 4), (64, 64, 8, 6),
          (128, 64, 8, 4), (128, 64, 4, 4), (128, 128, 8, 3), (32, 128, 8, 4), (16, 128, 4, 6)]
SPLITS = (2, 3, 4)


def fits(bn, bk, stages, bm):
    return stages * (bn + bm) * bk * 2 <= 220 * 1024


def best_of(run, configs, bm, check):
    best = None
    for bn, bk, warps, stages in configs:
        if not fits(bn, bk, stages, bm):
            continue
        try:
            run(bn, bk, warps, stages, None)
            torch.cuda.synchronize()
            err = check()
            if err > 2e-2:
                print(f"    config {bn}x{bk} w{warps} s{stages}: wrong, error {err:.1e}", flush=True)
                continue
            us = sk.gpu_us(lambda: run(bn, bk, warps, stages, "rotate"))
        except Exception as e:  # out of resources and the like: the config is not a candidate
            print(f"    config {bn}x{bk} w{warps} s{stages}: {type(e).__name__}", flush=True)
            continue
        if best is None or us < best[0]:
            best = (us, f"{bn}x{bk} w{warps} s{stages}", err)
    return best


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="128,256,512")
    parser.add_argument("--linears", default="qkv,o,down,gate_up")
    args = parser.parse_args()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    mod = sk.module("matmul/matmul_skinny.py")
    skinny = sk.undecorated(mod.matmul_skinny_kernel)
    split, reduce = sk.undecorated(mod.matmul_skinny_split_kernel), mod.split_k_reduce
    tma = sk.module("matmul/matmul_tma.py").matmul_tma_kernel
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    print(f"{'shape':<24}{'cuBLAS':>9}{'persistent':>18}{'skinny':>18}{'skinny split':>22}  configs", flush=True)
    for name in args.linears.split(","):
        n, k = sk.LINEARS[name]
        weights, next_weight = sk.rotation(lambda: torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02,
                                           n * k * 2)
        for m in (int(r) for r in args.rows.split(",")):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            reference = x.float() @ weights[0].float().t()
            bm = triton.next_power_of_2(m)

            def weight(how):
                return (weights[0] if how is None else next_weight()).t()

            def run_skinny(bn, bk, warps, stages, how):
                b = weight(how)
                skinny[(triton.cdiv(n, bn), 1)](
                    x, b, c, c, m, n, k, 0, x.stride(0), x.stride(1), 0, b.stride(0), b.stride(1), 0, c.stride(0),
                    c.stride(1), 0, 0, 0, 1.0, 0.0, 0, HAS_BIAS=False, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                    EVEN_K=k % bk == 0, INDEX64=False, num_warps=warps, num_stages=stages)

            def check():
                return sk.rel_error(c, reference)

            aten = sk.gpu_us(lambda: torch.mm(x, next_weight().t()))

            def run_tma(how):
                b = weight(how)
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    x, b, c, c, m, n, k, 1, m * k, x.stride(0), n * k, b.stride(0), b.stride(1), m * n, c.stride(0),
                    0, 0, 0, 1.0, 0.0, bm, HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)

            run_tma(None)
            torch.cuda.synchronize()
            assert check() < 2e-2
            persistent = sk.gpu_us(lambda: run_tma("rotate"))
            unsplit = best_of(run_skinny, SKINNY, bm, check)
            best_split = None
            for s in SPLITS:
                partial = torch.empty(s, m, n, device="cuda", dtype=torch.float32)

                def run_split(bn, bk, warps, stages, how, s=s, partial=partial):
                    b = weight(how)
                    split[(triton.cdiv(n, bn), s)](x, b, partial, m, n, k, x.stride(0), x.stride(1), b.stride(0),
                                                   b.stride(1), BLOCK_M=bm, SPLIT_K=s, BLOCK_N=bn, BLOCK_K=bk,
                                                   EVEN_K=k % bk == 0, INDEX64=False, num_warps=warps,
                                                   num_stages=stages)
                    reduce[(triton.cdiv(m * n, 1024),)](partial, c, m, n, c.stride(0), c.stride(1), SPLIT_K=s,
                                                        BLOCK=1024)

                got = best_of(run_split, SKINNY, bm, check)
                if got and (best_split is None or got[0] < best_split[0]):
                    best_split = (got[0], f"S{s} {got[1]}", got[2])
            cell = lambda b: f"{b[0]:8.1f} ({b[0] / aten:.2f})" if b else f"{'-':>15}"
            print(f"{name + f' {m}x{k}x{n}':<24}{aten:9.1f}{persistent:10.1f} ({persistent / aten:.2f})"
                  f"{cell(unsplit):>18}{cell(best_split):>22}  "
                  f"{unsplit[1] if unsplit else '-'} | {best_split[1] if best_split else '-'}", flush=True)
        del weights
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
