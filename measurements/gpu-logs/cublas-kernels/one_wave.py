"""Experiment: cuBLAS's tile counts without its clusters. At 128-512 rows cuBLAS runs nvjet kernels
whose tiles are not powers of two (96, 176, 192, 448 weight rows) so that a product makes one wave
of about 128 tiles, in clusters of 2 or 4 that share loads by TMA multicast, with a producer warp
group feeding two consumer groups (cublas_kernels.txt). Triton 3.6 has no multicast and no warp
specialization on sm_90, but a tile of 96 weight rows is two dots, 64 + 32, over one token block.
This times such a kernel (one tile or K slice per program, host TMA descriptors, K slices summed by
a second kernel as cuBLAS's splitKreduce does) at the tile counts cuBLAS picks, beside cuBLAS and
the library's persistent kernel, weights rotated past L2: how much of the gap is the wave, and how
much what Triton cannot express.

  python docs/gpu-logs/cublas-kernels/one_wave.py [--rows 128,256,512] [--linears qkv,o,down,gate_up]"""
import argparse
import itertools
import os
import sys

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "ops"))
import sweep_kernels as sk  # noqa: E402


@triton.jit
def one_wave_kernel(a_desc, b0_desc, b1_desc, b2_desc, c_ptr, partial_ptr, M, N, K, stride_cm,
                    BM: tl.constexpr, BN0: tl.constexpr, BN1: tl.constexpr, BN2: tl.constexpr,
                    BK: tl.constexpr, SPLIT: tl.constexpr):
    """C[t, w] = sum_k A[t, k] W[w, k] over a tile of BM tokens and BN0 + BN1 + BN2 weight rows."""
    pid = tl.program_id(0)
    part = tl.program_id(1)
    num_m = tl.cdiv(M, BM)
    # Token blocks vary fastest: the programs that share a weight tile run side by side, so the
    # weight comes from DRAM once and from L2 for the others.
    pid_m = pid % num_m
    pid_w = pid // num_m
    off_m = pid_m * BM
    off_w = pid_w * (BN0 + BN1 + BN2)
    k_tiles = tl.cdiv(K, BK)
    per_part = tl.cdiv(k_tiles, SPLIT)
    k_first = part * per_part
    k_last = min(k_first + per_part, k_tiles)
    acc0 = tl.zeros((BM, BN0), dtype=tl.float32)
    if BN1 > 0:
        acc1 = tl.zeros((BM, BN1), dtype=tl.float32)
    if BN2 > 0:
        acc2 = tl.zeros((BM, BN2), dtype=tl.float32)
    for ki in range(k_first, k_last):
        a = a_desc.load([off_m, ki * BK])
        b0 = b0_desc.load([off_w, ki * BK])
        acc0 = tl.dot(a, b0.T, acc0)
        if BN1 > 0:
            b1 = b1_desc.load([off_w + BN0, ki * BK])
            acc1 = tl.dot(a, b1.T, acc1)
        if BN2 > 0:
            b2 = b2_desc.load([off_w + BN0 + BN1, ki * BK])
            acc2 = tl.dot(a, b2.T, acc2)
    offs_m = off_m + tl.arange(0, BM)
    rows_live = offs_m[:, None] < M
    if SPLIT == 1:
        out = c_ptr + offs_m[:, None] * stride_cm
        ty = c_ptr.dtype.element_ty
    else:
        out = partial_ptr + part * M * N + offs_m[:, None] * N
        ty = tl.float32
    offs0 = off_w + tl.arange(0, BN0)
    tl.store(out + offs0[None, :], acc0.to(ty), mask=rows_live & (offs0[None, :] < N))
    if BN1 > 0:
        offs1 = off_w + BN0 + tl.arange(0, BN1)
        tl.store(out + offs1[None, :], acc1.to(ty), mask=rows_live & (offs1[None, :] < N))
    if BN2 > 0:
        offs2 = off_w + BN0 + BN1 + tl.arange(0, BN2)
        tl.store(out + offs2[None, :], acc2.to(ty), mask=rows_live & (offs2[None, :] < N))


PIECES = [(64, 0, 0), (128, 0, 0), (256, 0, 0), (32, 16, 0), (64, 32, 0), (128, 32, 0), (128, 64, 0),
          (128, 64, 32), (128, 32, 16), (256, 128, 64), (256, 64, 0), (256, 128, 0)]
SMEM = 225 * 1024


def candidates(m, n, k, sms):
    """Configs whose programs fill one wave (at least 3/4 of the SMs, at most all of them) or,
    unsplit, several nearly full waves."""
    for bm, pieces, bk, split in itertools.product((64, 128), PIECES, (64, 128), (1, 2, 3, 4)):
        bw = sum(pieces)
        units = triton.cdiv(m, bm) * triton.cdiv(n, bw) * split
        waves = units / sms
        if not (0.75 <= waves <= 1.0 or (split == 1 and 1.0 < waves < 6 and -(-units // sms) - waves <= 0.15)):
            continue
        if bm * bw > 128 * 256 or (split > 1 and k // split < 1024):
            continue
        per_stage = (bm + bw) * bk * 2
        stages = min(6 if bk == 64 else 4, (SMEM - 4096) // per_stage)
        if stages < 2:
            continue
        warps = 8 if bm * bw >= 128 * 128 else 4
        yield bm, pieces, bk, split, warps, stages, units


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="128,256,512")
    parser.add_argument("--linears", default="qkv,o,down,gate_up")
    args = parser.parse_args()
    torch.manual_seed(0)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    mod = sk.module("matmul/matmul_skinny.py")
    reduce = mod.split_k_reduce
    tma = sk.module("matmul/matmul_tma.py").matmul_tma_kernel
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    for name in args.linears.split(","):
        n, k = sk.LINEARS[name]
        weights, next_weight = sk.rotation(lambda: torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02,
                                           n * k * 2)
        for m in (int(r) for r in args.rows.split(",")):
            x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            partial = torch.empty(4 * m * n, device="cuda", dtype=torch.float32)
            reference = x.float() @ weights[0].float().t()
            aten = sk.gpu_us(lambda: torch.mm(x, next_weight().t()))

            def run_tma():
                b = next_weight().t()
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    x, b, c, c, m, n, k, 1, m * k, x.stride(0), n * k, b.stride(0), b.stride(1), m * n, c.stride(0),
                    0, 0, 0, 1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)

            persistent = sk.gpu_us(run_tma)
            results = []
            for bm, pieces, bk, split, warps, stages, units in candidates(m, n, k, sms):
                a_desc = TensorDescriptor.from_tensor(x, [bm, bk])
                descs = [[TensorDescriptor.from_tensor(w, [p or 16, bk]) for p in pieces] for w in weights]
                turn = {"i": 0}

                def run(rotate=True):
                    i = turn["i"] = (turn["i"] + 1) % len(weights) if rotate else 0
                    d = descs[i]
                    one_wave_kernel[(units // split, split)](
                        a_desc, d[0], d[1], d[2], c, partial, m, n, k, c.stride(0), BM=bm, BN0=pieces[0],
                        BN1=pieces[1], BN2=pieces[2], BK=bk, SPLIT=split, num_warps=warps, num_stages=stages)
                    if split > 1:
                        reduce[(triton.cdiv(m * n, 1024),)](partial, c, m, n, c.stride(0), 1, SPLIT_K=split, BLOCK=1024)

                label = f"{bm}x{'+'.join(str(p) for p in pieces if p)}x{bk} S{split} w{warps} s{stages} ({units})"
                try:
                    c.zero_()
                    run(rotate=False)
                    torch.cuda.synchronize()
                    err = sk.rel_error(c, reference)
                    if err > 2e-2:
                        print(f"    {name} {m} {label}: wrong, error {err:.1e}", flush=True)
                        continue
                    us = sk.gpu_us(run)
                except Exception as e:  # out of resources and the like: the config is not a candidate
                    print(f"    {name} {m} {label}: {type(e).__name__} {str(e)[:120]}", flush=True)
                    continue
                results.append((us, label))
            results.sort()
            top = ", ".join(f"{us:.1f} ({us / aten:.2f}) {label}" for us, label in results[:3])
            print(f"{name + f' {m}x{k}x{n}':<24} cuBLAS {aten:6.1f}  persistent {persistent:6.1f} "
                  f"({persistent / aten:.2f})  one-wave best: {top}  [{len(results)} configs]", flush=True)
        del weights
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
