"""Diagnose the Gluon GEMM on the GPU: Triton's own launch first, then ours, each shape alone."""
import faulthandler, sys, os, time
faulthandler.dump_traceback_later(int(os.environ.get("DIAG_TIMEOUT", "45")), exit=True)
root = sys.argv[1]
sys.path[:0] = [os.path.join(root, "operators", "matmul"), os.path.join(os.environ["TRITON_JIT_BUILD_DIR"], "python")]
import torch, triton
import matmul_gluon
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
who, M, N, K, swap, tr, tc, bk, st, w = sys.argv[2], *map(int, sys.argv[3:12])
a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
wt = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K**0.5
c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
if swap:
    args = (wt, a, c, None, N, M, K, wt.stride(0), a.stride(0), c.stride(0)); rows, cols = N, M
else:
    args = (a, wt, c, None, M, N, K, a.stride(0), wt.stride(0), c.stride(0)); rows, cols = M, N
grid = (min(132, triton.cdiv(rows, tr) * triton.cdiv(cols, tc)),)
meta = dict(TILE_R=tr, TILE_C=tc, BLOCK_K=bk, GROUP_M=8, NUM_STAGES=st, W_KMAJOR=True, SWAP_AB=bool(swap), HAS_BIAS=False, num_warps=w)
if who == "host":
    from triton.experimental.gluon.nvidia.hopper import TensorDescriptor
    lay = lambda b: matmul_gluon.gl.NVMMASharedLayout.get_default_for(b, matmul_gluon.gl.bfloat16)
    X, W = (wt, a) if swap else (a, wt)
    xd = TensorDescriptor.from_tensor(X, [tr, bk], lay([tr, bk]))
    wd = TensorDescriptor.from_tensor(W, [tc, bk], lay([tc, bk]))
    cd = xd if swap else TensorDescriptor.from_tensor(c, [tr, tc], lay([tr, tc]))
    k = matmul_gluon.matmul_ws_desc_kernel[grid](xd, wd, cd, c, None, rows, cols, K, c.stride(0), GROUP_M=8,
                                                 NUM_STAGES=st, W_KMAJOR=True, SWAP_AB=bool(swap), HAS_BIAS=False, num_warps=w)
    print("host descriptors: n_regs", k.n_regs, "warps", k.metadata.num_warps, flush=True)
elif who == "triton":
    k = matmul_gluon.matmul_ws_kernel[grid](*args, **meta)
    print("compiled: n_regs", k.n_regs, "spills", k.n_spills, "shared", k.metadata.shared, "warps", k.metadata.num_warps, flush=True)
else:
    import triton_jit
    triton_jit.jit(matmul_gluon.matmul_ws_kernel)[grid](*args, **meta)
    print("launched through triton_jit", flush=True)
torch.cuda.synchronize()
ref = a.float() @ wt.float().t()
print(who, sys.argv[3:], "rel error", ((c.float() - ref).norm() / ref.norm()).item(), flush=True)
