"""Experiment: attention-shaped batched products (scores Q K^T with K = head dim, values P V) at
128, 512 and 2048 tokens against cuBLAS: a non-persistent TMA kernel, one program per (tile,
batch), over a range of tiles, warps and stages, beside the library's generic kernel (autotuned).
Batches are laid end to end (rows of A and C, rows of K-major B), which needs M and N to be
multiples of the tile; the shapes here are."""
import os, sys
import torch, triton
import triton.language as tl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk


@triton.jit
def bmm_tma_kernel(a_ptr, b_ptr, c_ptr, M, N, K, B_ROWS,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   B_KMAJOR: tl.constexpr, BATCH_MAJOR: tl.constexpr):
    if BATCH_MAJOR:
        tile = tl.program_id(1)
        batch = tl.program_id(0)
    else:
        tile = tl.program_id(0)
        batch = tl.program_id(1)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    in_group = GROUP_M * num_pid_n
    first_m = (tile // in_group) * GROUP_M
    group_rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group_rows)
    pid_n = (tile % in_group) // group_rows
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[B_ROWS * M, K], strides=[K, 1], block_shape=[BLOCK_M, BLOCK_K])
    c_desc = tl.make_tensor_descriptor(c_ptr, shape=[B_ROWS * M, N], strides=[N, 1], block_shape=[BLOCK_M, BLOCK_N])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[B_ROWS * N, K], strides=[K, 1], block_shape=[BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[B_ROWS * K, N], strides=[N, 1], block_shape=[BLOCK_K, BLOCK_N])
    row_a = batch * M + pid_m * BLOCK_M
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for ki in range(tl.cdiv(K, BLOCK_K)):
        a = a_desc.load([row_a, ki * BLOCK_K])
        if B_KMAJOR:
            b = b_desc.load([batch * N + pid_n * BLOCK_N, ki * BLOCK_K]).T
        else:
            b = b_desc.load([batch * K + ki * BLOCK_K, pid_n * BLOCK_N])
        acc = tl.dot(a, b, acc)
    c_desc.store([row_a, pid_n * BLOCK_N], acc.to(c_ptr.dtype.element_ty))


CONFIGS = [(128, 128, 64, 8, 3), (128, 128, 128, 8, 2), (128, 128, 64, 4, 3), (128, 256, 64, 8, 3),
           (128, 256, 128, 8, 2), (64, 128, 64, 4, 3), (64, 128, 128, 4, 2), (128, 64, 64, 4, 3),
           (64, 256, 64, 4, 3), (256, 128, 64, 8, 3), (64, 64, 128, 4, 2), (128, 128, 32, 4, 4)]


def main():
    torch.manual_seed(0)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    generic = sk.module("matmul/matmul.py").matmul_kernel
    for tokens in (128, 512, 2048):
        for head in (128, 64):
            heads = 32
            q = torch.randn(heads, tokens, head, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(heads, tokens, head, device="cuda", dtype=torch.bfloat16)
            p = torch.randn(heads, tokens, tokens, device="cuda", dtype=torch.bfloat16) / 16
            v = torch.randn(heads, tokens, head, device="cuda", dtype=torch.bfloat16)
            for name, a, b_store, kmajor in (("scores", q, k, True), ("values", p, v, False)):
                b = b_store.transpose(1, 2) if kmajor else b_store
                bsz, m, kk = a.shape
                n = b.shape[2]
                c = torch.empty(bsz, m, n, device="cuda", dtype=torch.bfloat16)
                ref = torch.bmm(a.float(), b.float())
                aten = sk.gpu_us(lambda: torch.bmm(a, b))

                def run_generic():
                    generic[lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]), bsz)](
                        a, b, c, c, m, n, kk, a.stride(0), a.stride(1), a.stride(2), b.stride(0), b.stride(1),
                        b.stride(2), c.stride(0), c.stride(1), c.stride(2), 0, 0, 0, 1.0, 0.0, 0,
                        HAS_BIAS=False, PRECISION="ieee")
                run_generic()
                t_generic = sk.gpu_us(run_generic)
                results = []
                for bm, bn, bk, warps, stages in CONFIGS:
                    if m % bm or n % bn or bk > kk:
                        continue
                    tiles = (m // bm) * (n // bn)
                    for batch_major in (False, True):
                        grid = (bsz, tiles) if batch_major else (tiles, bsz)

                        def run():
                            bmm_tma_kernel[grid](a, b_store, c, m, n, kk, bsz, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
                                                 GROUP_M=8, B_KMAJOR=kmajor, BATCH_MAJOR=batch_major,
                                                 num_warps=warps, num_stages=stages)
                        try:
                            c.zero_()
                            run()
                            torch.cuda.synchronize()
                            err = sk.rel_error(c, ref)
                            us = sk.gpu_us(run)
                        except Exception as e:  # noqa: BLE001 - a config that fails is reported, not fatal
                            print(f"  {name} {tokens} {bm}x{bn}x{bk} w{warps} s{stages}: {type(e).__name__} "
                                  f"{str(e)[:100]}", flush=True)
                            continue
                        results.append((us, f"{bm}x{bn}x{bk} w{warps} s{stages}{' batch-major' if batch_major else ''}",
                                        err))
                results.sort()
                best = results[0]
                flops = 2 * bsz * m * n * kk
                print(f"{name:7} {bsz}x{m}x{kk}x{n:<5} cuBLAS {aten:7.2f}  generic {t_generic:7.2f} "
                      f"({t_generic / aten:4.2f})  tma {best[0]:7.2f} ({best[0] / aten:4.2f}, "
                      f"{flops / best[0] / 1e6:5.0f} TFLOP/s) {best[1]} err {best[2]:.1e}  "
                      f"next {[(round(r[0], 2), r[1]) for r in results[1:3]]}", flush=True)
                bad = [r for r in results if r[2] > 2e-2]
                if bad:
                    print(f"  ERROR over 2e-2: {bad[:3]}", flush=True)


if __name__ == "__main__":
    main()
