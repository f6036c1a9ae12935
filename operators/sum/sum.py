import triton
import triton.language as tl


@triton.jit
def sum_dim_kernel(x_ptr, out_ptr, M, N, K, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    """out[m, k] = sum over n of x[m, n, k] for a contiguous (M, N, K) view; accumulates in fp32."""
    pid_m = tl.program_id(0).to(tl.int64)
    pid_k = tl.program_id(1)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    acc = tl.zeros([BLOCK_N, BLOCK_K], dtype=tl.float32)
    base = x_ptr + pid_m * N * K
    for n0 in range(0, N, BLOCK_N):
        offs_n = n0 + tl.arange(0, BLOCK_N)
        mask = (offs_n[:, None] < N) & (offs_k[None, :] < K)
        x = tl.load(base + offs_n[:, None] * K + offs_k[None, :], mask=mask, other=0.0)
        acc += x.to(tl.float32)
    total = tl.sum(acc, axis=0)
    tl.store(out_ptr + pid_m * K + offs_k, total.to(out_ptr.dtype.element_ty), mask=offs_k < K)
