"""Experiment: stream-K for 128-512-row products. The (tile, K step) iterations of the whole product
are dealt evenly to P programs (P = SM count or twice it); a program whose span covers a tile only in
part adds its fp32 partial into a workspace kept zero between calls, and whichever contributor
completes the tile's K steps (a per-tile counter of steps) writes the output and clears its workspace
tile. DP_TILES tiles may go first, one whole tile a program, the rest by stream-K (hybrid)."""
import os, sys
import torch, triton
import triton.language as tl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk


@triton.jit
def _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    in_group = GROUP_M * num_pid_n
    first_m = (tile // in_group) * GROUP_M
    group_rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group_rows)
    pid_n = (tile % in_group) // group_rows
    return pid_m, pid_n


@triton.jit
def streamk_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, count_ptr, M, N, K, DP_TILES,
                   stride_am, stride_bn, stride_cm,
                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                   PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    tiles = num_pid_m * num_pid_n
    k_tiles = tl.cdiv(K, BLOCK_K)
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[M, K], strides=[stride_am, 1], block_shape=[BLOCK_M, BLOCK_K])
    b_desc = tl.make_tensor_descriptor(b_ptr, shape=[N, K], strides=[stride_bn, 1], block_shape=[BLOCK_N, BLOCK_K])
    for tile in tl.range(pid, DP_TILES, PROGRAMS):
        pid_m, pid_n = _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        live = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=live)
    total = (tiles - DP_TILES) * k_tiles
    per_program = tl.cdiv(total, PROGRAMS)
    it = pid * per_program
    end = min(it + per_program, total)
    while it < end:
        tile = DP_TILES + it // k_tiles
        k0 = it % k_tiles
        k1 = min(k_tiles, k0 + (end - it))
        pid_m, pid_n = _tile_coords(tile, num_pid_m, num_pid_n, GROUP_M)
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k0, k1):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
        offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
        live = (offs_m[:, None] < M) & (offs_n[None, :] < N)
        if k0 == 0 and k1 == k_tiles:
            tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=live)
        else:
            ws = ws_ptr + offs_m[:, None] * N + offs_n[None, :]
            tl.atomic_add(ws, acc, mask=live, sem="relaxed")
            tl.debug_barrier()
            done_before = tl.atomic_add(count_ptr + tile, k1 - k0, sem="acq_rel")
            if done_before + (k1 - k0) == k_tiles:
                summed = tl.load(ws, mask=live, other=0.0, cache_modifier=".cg")
                tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], summed.to(c_ptr.dtype.element_ty),
                         mask=live)
                tl.store(ws, tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32), mask=live, cache_modifier=".cg")
                tl.atomic_xchg(count_ptr + tile, 0, sem="relaxed")
        it += k1 - k0


CONFIGS = [(128, 256, 64, 8, 3), (128, 128, 64, 8, 4), (128, 128, 64, 4, 4), (128, 128, 128, 8, 3),
           (64, 256, 64, 4, 4), (64, 128, 128, 4, 4), (128, 64, 128, 4, 4), (64, 64, 128, 4, 4)]


def main():
    torch.manual_seed(0)
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    tma = sk.module("matmul/matmul_tma.py").matmul_tma_kernel
    ws = torch.zeros(2048 * 28672, device="cuda", dtype=torch.float32)
    counts = torch.zeros(65536, device="cuda", dtype=torch.int32)
    shapes = (("qkv", 4096, 6144), ("o", 4096, 4096), ("gate_up", 4096, 28672), ("down", 14336, 4096))
    rows = [int(r) for r in os.environ.get("ROWS", "128,256,512,1024").split(",")]
    for name, k, n in shapes:
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / 64
        b = w.t()
        for m in rows:
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            ref = a.float() @ b.float()
            aten = sk.gpu_us(lambda: torch.mm(a, b))

            def persistent():
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    a, b, c, c, m, n, k, 1, 0, a.stride(0), 0, b.stride(0), b.stride(1), 0, c.stride(0), 0, 0, 0,
                    1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)
            persistent()
            ours_now = sk.gpu_us(persistent)
            results = []
            for bm, bn, bk, warps, stages in CONFIGS:
                tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
                for programs in (sms, 2 * sms):
                    for dp in sorted({0, (tiles // programs) * programs, max(0, (tiles // programs - 1) * programs)}):
                        def run():
                            streamk_kernel[(programs,)](a, w, c, ws, counts, m, n, k, dp, a.stride(0), w.stride(0),
                                                        c.stride(0), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                                                        PROGRAMS=programs, num_warps=warps, num_stages=stages)
                        try:
                            c.zero_()
                            run()
                            torch.cuda.synchronize()
                            err = sk.rel_error(c, ref)
                            us = sk.gpu_us(run)
                            c.zero_()
                            run()
                            err = max(err, sk.rel_error(c, ref))
                        except Exception as e:  # noqa: BLE001 - a config that fails is reported, not fatal
                            print(f"  {name} {m} {bm}x{bn}x{bk} w{warps} s{stages} P{programs} dp{dp}: "
                                  f"{type(e).__name__} {str(e)[:120]}", flush=True)
                            continue
                        results.append((us, f"{bm}x{bn}x{bk} w{warps} s{stages} P{programs} dp{dp}", err))
            if not results:
                continue
            results.sort()
            best = results[0]
            print(f"{name:8} {m:5}x{k}x{n:<6} cuBLAS {aten:7.1f}  persistent {ours_now:7.1f} ({ours_now / aten:4.2f})  "
                  f"stream-K {best[0]:7.1f} ({best[0] / aten:4.2f}) {best[1]} err {best[2]:.1e}  "
                  f"next {[(round(r[0], 1), r[1]) for r in results[1:3]]}", flush=True)
            bad = [r for r in results if r[2] > 2e-2]
            if bad:
                print(f"  ERROR over 2e-2: {bad[:3]}", flush=True)


if __name__ == "__main__":
    main()
