"""Experiment: stream-K for decode products (M = 16 to 64 against qkv, o, gate_up, down, lm_head).
The weight's (column block, K step) iterations are dealt evenly to P programs, so every SM streams
the same number of weight bytes whatever N is (6144 = 96 blocks of 64 leaves 36 of 132 SMs idle in
one wave). Partial sums (M x BLOCK_N fp32, small at these M) are added into a workspace kept zero;
the contributor that completes a column block's K steps writes it out and clears it."""
import os, sys
import torch, triton
import triton.language as tl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk


@triton.jit
def skinny_streamk_kernel(a_ptr, b_ptr, c_ptr, ws_ptr, count_ptr, M, N, K, stride_am, stride_bn, stride_cm,
                          BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr,
                          PROGRAMS: tl.constexpr):
    pid = tl.program_id(0)
    blocks = tl.cdiv(N, BLOCK_N)
    k_steps = K // BLOCK_K
    total = blocks * k_steps
    per_program = tl.cdiv(total, PROGRAMS)
    it = pid * per_program
    end = min(it + per_program, total)
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    rows_live = offs_m < M
    while it < end:
        block = it // k_steps
        k0 = it % k_steps
        k1 = min(k_steps, k0 + (end - it))
        offs_n = (block * BLOCK_N + tl.arange(0, BLOCK_N)) % N
        w_ptrs = b_ptr + offs_n[:, None] * stride_bn + (k0 * BLOCK_K + offs_k)[None, :]
        x_ptrs = a_ptr + offs_m[None, :] * stride_am + (k0 * BLOCK_K + offs_k)[:, None]
        acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
        for _ in range(k0, k1):
            w = tl.load(w_ptrs)
            x = tl.load(x_ptrs, mask=rows_live[None, :], other=0.0)
            acc = tl.dot(w, x, acc)
            w_ptrs += BLOCK_K
            x_ptrs += BLOCK_K
        offs_n = block * BLOCK_N + tl.arange(0, BLOCK_N)
        live = (offs_n[:, None] < N) & rows_live[None, :]
        c_ptrs = c_ptr + offs_m[None, :] * stride_cm + offs_n[:, None]
        if k0 == 0 and k1 == k_steps:
            tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=live)
        else:
            ws = ws_ptr + offs_m[None, :] * N + offs_n[:, None]
            tl.atomic_add(ws, acc, mask=live, sem="relaxed")
            tl.debug_barrier()
            done_before = tl.atomic_add(count_ptr + block, k1 - k0, sem="acq_rel")
            if done_before + (k1 - k0) == k_steps:
                summed = tl.load(ws, mask=live, other=0.0, cache_modifier=".cg")
                tl.store(c_ptrs, summed.to(c_ptr.dtype.element_ty), mask=live)
                tl.store(ws, tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32), mask=live, cache_modifier=".cg")
                tl.atomic_xchg(count_ptr + block, 0, sem="relaxed")
        it += k1 - k0


CONFIGS = [(32, 128, 4, 4), (32, 256, 4, 4), (64, 128, 4, 4), (64, 128, 4, 6), (64, 256, 4, 4), (64, 256, 8, 3),
           (128, 128, 8, 4), (128, 64, 4, 6), (16, 256, 4, 4)]


def main():
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    ws = torch.zeros(64 * 128256, device="cuda", dtype=torch.float32)
    counts = torch.zeros(65536, device="cuda", dtype=torch.int32)
    shapes = (("qkv", 4096, 6144), ("o", 4096, 4096), ("gate_up", 4096, 28672), ("down", 14336, 4096),
              ("lm_head", 4096, 128256))
    for name, k, n in shapes:
        ws_bytes = n * k * 2
        weights, _ = sk.rotation(lambda: torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / 64, ws_bytes)
        for m in (1, 16, 32, 64):
            block_m = max(16, triton.next_power_of_2(m))
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            ref = a.float() @ weights[0].float().t()
            turn = [0]

            def aten():
                turn[0] = (turn[0] + 1) % len(weights)
                torch.mm(a, weights[turn[0]].t())
            t_aten = sk.gpu_us(aten)
            results = []
            for bn, bk, warps, stages in CONFIGS:
                for programs in (sms, 2 * sms, 3 * sms):
                    def run(w=None):
                        if w is None:
                            turn[0] = (turn[0] + 1) % len(weights)
                            w = weights[turn[0]]
                        skinny_streamk_kernel[(programs,)](a, w, c, ws, counts, m, n, k, a.stride(0), w.stride(0),
                                                           c.stride(0), BLOCK_M=block_m, BLOCK_N=bn, BLOCK_K=bk,
                                                           PROGRAMS=programs, num_warps=warps, num_stages=stages)
                    try:
                        c.zero_()
                        run(weights[0])
                        torch.cuda.synchronize()
                        err = sk.rel_error(c, ref)
                        us = sk.gpu_us(run)
                        c.zero_()
                        run(weights[0])
                        err = max(err, sk.rel_error(c, ref))
                    except Exception as e:  # noqa: BLE001 - a config that fails is reported, not fatal
                        print(f"  {name} {m} {bn}x{bk} w{warps} s{stages} P{programs}: {type(e).__name__} "
                              f"{str(e)[:120]}", flush=True)
                        continue
                    results.append((us, f"{bn}x{bk} w{warps} s{stages} P{programs}", err))
            results.sort()
            best = results[0]
            gbs = ws_bytes / best[0] / 1e3
            print(f"{name:8} {m:3}x{k}x{n:<7} cuBLAS {t_aten:7.1f} ({ws_bytes / t_aten / 1e3:5.0f} GB/s)  stream-K "
                  f"{best[0]:7.1f} ({best[0] / t_aten:4.2f}, {gbs:5.0f} GB/s) {best[1]} err {best[2]:.1e}  "
                  f"next {[(round(r[0], 1), r[1]) for r in results[1:3]]}", flush=True)
            bad = [r for r in results if r[2] > 2e-2]
            if bad:
                print(f"  ERROR over 2e-2: {bad[:3]}", flush=True)


if __name__ == "__main__":
    main()
