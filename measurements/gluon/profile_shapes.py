"""One launch of a Gluon kernel at one shape, for Nsight Compute (after a warm-up launch that
compiles it): `ncu --launch-skip 1 --launch-count 1 ... python3 profile_shapes.py CASE`.
    attention:<kernel>:<batch>x<tokens>:<causal 0|1>   (32/8 heads, d = 128, bf16)
    gemm:<M>x<N>x<K>:<TILE_R>x<TILE_C>x<BLOCK_K>:<stages>:<warps>[:stream-k|ping-pong|sliced]
        (y = x W^T, W [N, K], bf16; the whole-tile kernel unless named; sliced: TILE_R weight rows,
        64 a slice, by TILE_C tokens, warps 4)"""
import math
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path[:0] = [os.path.join(ROOT, "benchmarks"), os.path.join(ROOT, "operators", "common"),
                os.path.join(ROOT, "operators", "attention"), os.path.join(ROOT, "operators", "matmul")]

import torch  # noqa: E402
import triton  # noqa: E402

triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))


def attention(kernel, shape, causal):
    import gluon_attention
    batch, tokens = map(int, shape.split("x"))
    q, k, v, cu_q, cu_k = gluon_attention.make_inputs([tokens] * batch, [tokens] * batch, 32, 8, 128, torch.bfloat16)
    for _ in range(2):
        gluon_attention.gluon_attention(q, k, v, cu_q, cu_k, tokens, causal == "1", 1 / math.sqrt(128), kernel=kernel)


def gemm(shape, tile, stages, warps, kernel="whole"):
    import matmul_gluon
    M, N, K = map(int, shape.split("x"))
    tile_r, tile_c, block_k = map(int, tile.split("x"))
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16)
    c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    meta = dict(TILE_R=tile_r, TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=int(stages), W_KMAJOR=True,
                HAS_BIAS=False, num_warps=int(warps))
    strides = (a.stride(0), w.stride(0), c.stride(0))
    if kernel == "stream-k":
        programs = matmul_gluon.stream_k_programs(M, N, K, tile_r, tile_c, block_k, sms)
        partial = torch.empty(programs, 2, tile_r, tile_c, device="cuda", dtype=torch.float32)
        counts = torch.zeros(2 * programs, device="cuda", dtype=torch.int32)
        launch = lambda: matmul_gluon.matmul_stream_k_kernel[(programs, )](a, w, c, None, partial, counts, M, N, K,
                                                                          *strides, **meta)
    elif kernel == "sliced":
        grid = (min(sms, triton.cdiv(N, tile_r) * triton.cdiv(M, tile_c)), )
        sliced = dict(TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=int(stages), SLICES=tile_r // 64,
                      HAS_BIAS=False, num_warps=4)
        launch = lambda: matmul_gluon.matmul_sliced_kernel[grid](w, a, c, None, N, M, K, w.stride(0), a.stride(0),
                                                                 c.stride(0), **sliced)
    else:
        grid = (min(sms, triton.cdiv(M, tile_r) * triton.cdiv(N, tile_c)), )
        fn = matmul_gluon.matmul_pingpong_kernel if kernel == "ping-pong" else matmul_gluon.matmul_ws_kernel
        if kernel != "ping-pong":
            meta["SWAP_AB"] = False
        launch = lambda: fn[grid](a, w, c, None, M, N, K, *strides, **meta)
    for _ in range(2):
        launch()


if __name__ == "__main__":
    what, *rest = sys.argv[1].split(":")
    attention(*rest) if what == "attention" else gemm(*rest)
    torch.cuda.synchronize()
