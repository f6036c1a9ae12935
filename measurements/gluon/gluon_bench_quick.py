"""A first look at the Gluon GEMM's speed beside cuBLAS (Triton's own launch, host descriptors)."""
import os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "operators", "matmul"))
import torch, triton
import matmul_gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
lay = lambda b: gl.NVMMASharedLayout.get_default_for(b, gl.bfloat16)
print(torch.cuda.get_device_name(0), "torch", torch.__version__, "triton", triton.__version__, flush=True)
CASES = [("llama o", 2048, 4096, 4096, None), ("llama gate_up", 2048, 28672, 4096, None),
         ("llama down", 2048, 4096, 14336, None), ("llama o", 128, 4096, 4096, None),
         ("llama down", 1, 4096, 14336, None), ("llama gate_up", 1, 28672, 4096, None)]
if len(sys.argv) > 2:  # the second look: other tiles where the first trailed
    CASES = [("llama o", 128, 4096, 4096, (64, 128, 64, 6, 4, False)), ("llama o", 128, 4096, 4096, (128, 128, 64, 6, 4, True)),
             ("llama o", 128, 4096, 4096, (64, 64, 64, 8, 4, False)), ("llama down", 1, 4096, 14336, (64, 16, 128, 8, 4, True)),
             ("llama gate_up", 1, 28672, 4096, (64, 16, 128, 8, 4, True))]
for name, M, N, K, cfg in CASES:
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K**0.5
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    swap = M <= 64
    tr, tc, bk, st, nw = (128, 16, 128, 6, 4) if swap else ((128, 256, 64, 3, 8) if M > 128 else (128, 128, 64, 4, 4))
    if cfg is not None:
        tr, tc, bk, st, nw, swap = cfg
    X, W = (w, a) if swap else (a, w)
    rows, cols = (N, M) if swap else (M, N)
    xd = TensorDescriptor.from_tensor(X, [tr, bk], lay([tr, bk])); wd = TensorDescriptor.from_tensor(W, [tc, bk], lay([tc, bk]))
    cd = xd if swap else TensorDescriptor.from_tensor(c, [tr, tc], lay([tr, tc]))
    grid = (min(132, triton.cdiv(rows, tr) * triton.cdiv(cols, tc)),)
    run = lambda: matmul_gluon.matmul_ws_desc_kernel[grid](xd, wd, cd, c, None, rows, cols, K, c.stride(0), GROUP_M=8, NUM_STAGES=st,
                                                           W_KMAJOR=True, SWAP_AB=swap, HAS_BIAS=False, num_warps=nw)
    run(); torch.cuda.synchronize()
    err = ((c.float() - a.float() @ w.float().t()).norm() / (a.float() @ w.float().t()).norm()).item()
    ours = triton.testing.do_bench_cudagraph(run)
    theirs = triton.testing.do_bench_cudagraph(lambda: torch.matmul(a, w.t(), out=c))
    fl = 2 * M * N * K
    print(f"{name:14} M={M:5} N={N:6} K={K:6}: gluon {ours*1e3:8.1f} us ({fl/ours*1e-9:6.0f} TFLOP/s), cuBLAS {theirs*1e3:8.1f} us "
          f"({fl/theirs*1e-9:6.0f}), ratio {ours/theirs:5.2f}, rel err {err:.1e}, tile {tr}x{tc}x{bk} s{st} w{nw}{' swapped' if swap else ''}", flush=True)
