"""Kernels that take host-side TMA tensor descriptors (triton.tools.tensor_descriptor), for the
tests of descriptor arguments (tests/cpu, tests/gpu) and the comparison with Triton's launch."""
import triton
import triton.language as tl


@triton.jit
def copy_tiles(in_desc, out_desc, M, N, BM: tl.constexpr, BN: tl.constexpr):
    """Copies a tensor tile by tile through two descriptors."""
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    tile = in_desc.load([pid_m * BM, pid_n * BN])
    out_desc.store([pid_m * BM, pid_n * BN], tile)


@triton.jit
def matmul_tma_persistent(a_desc, b_desc, c_desc, M, N, K, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
                          BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr, NUM_SMS: tl.constexpr):
    """C = A @ B^T with A (M, K), B (N, K) and C (M, N) behind descriptors; one program per SM
    walks the output tiles in grouped order."""
    start_pid = tl.program_id(0)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    k_tiles = tl.cdiv(K, BLOCK_K)
    num_tiles = num_pid_m * num_pid_n
    num_pid_in_group = GROUP_M * num_pid_n
    for tile_id in tl.range(start_pid, num_tiles, NUM_SMS):
        group_id = tile_id // num_pid_in_group
        first_pid_m = group_id * GROUP_M
        group_size_m = min(num_pid_m - first_pid_m, GROUP_M)
        pid_m = first_pid_m + (tile_id % group_size_m)
        pid_n = (tile_id % num_pid_in_group) // group_size_m
        offs_m = pid_m * BLOCK_M
        offs_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            offs_k = ki * BLOCK_K
            a = a_desc.load([offs_m, offs_k])
            b = b_desc.load([offs_n, offs_k])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([offs_m, offs_n], acc.to(c_desc.dtype))
