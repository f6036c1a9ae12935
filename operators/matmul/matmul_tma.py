"""mm, addmm and bmm on Hopper and newer in float16 and bfloat16, for products with more than a
decode step's rows: a persistent kernel (one program per SM walks the output tiles in grouped
order) whose operands arrive through tensor-memory-accelerator descriptors built on the device.
B is read in either layout without a copy: K-major (nn.Linear's weight W, B = W^T) or N-major
(row-major B). The caller guarantees what TMA needs: 16-byte aligned bases, rows whose stride is a
multiple of 16 bytes, and a unit stride along the contiguous side of each operand and of C.

Descriptors are three-dimensional (batch, rows, columns) so that a tile never reads or writes
across a batch; out-of-bounds reads are zeros and out-of-bounds writes are dropped by the copy
engine, so no tile is masked. The M-size class (the next power of two of M, given by the caller)
keys the tuning: a prefill of 2000 tokens reuses the choice made for 2048."""
import triton
import triton.language as tl


def _configs():
    configs = []
    for bm, bn, bk, warps, stages, subtile in [
        (128, 256, 64, 8, 3, True), (128, 256, 64, 8, 4, True), (128, 256, 64, 8, 3, False),
        (128, 128, 64, 8, 4, False), (128, 128, 64, 4, 4, False), (128, 128, 128, 8, 3, False),
        (256, 128, 64, 8, 3, True), (64, 256, 64, 4, 4, False), (64, 128, 64, 4, 5, False),
    ]:
        configs.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8,
                                      "EPILOGUE_SUBTILE": subtile}, num_warps=warps, num_stages=stages))
    return configs


def _prune(configs, named_args, **kwargs):
    """Tiles no larger than the problem needs (a 128-row product does not tune 256-row tiles), and
    stages that fit the shared memory of sm_90 beside the epilogue's tile."""
    m, n = named_args["M"], named_args["N"]
    element = named_args["a_ptr"].element_size()

    def fits(c):
        bm, bn, bk = c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"]
        epilogue = bm * bn * element // (2 if c.kwargs["EPILOGUE_SUBTILE"] else 1)
        if c.num_stages * (bm + bn) * bk * element + epilogue > 220 * 1024:
            return False
        return bm <= max(64, triton.next_power_of_2(m)) and bn <= max(128, triton.next_power_of_2(n))

    kept = [c for c in configs if fits(c)]
    return kept or [configs[-1]]


@triton.jit
def _tile_of(tile, num_pid_m, num_pid_n, GROUP_M: tl.constexpr):
    """(batch, pid_m, pid_n) of a linear tile index: batches outermost, then groups of GROUP_M row
    blocks, so that programs running together share rows of A and columns of B in L2."""
    per_batch = num_pid_m * num_pid_n
    batch = tile // per_batch
    tile = tile % per_batch
    in_group = GROUP_M * num_pid_n
    first_m = (tile // in_group) * GROUP_M
    group_rows = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + (tile % group_rows)
    pid_n = (tile % in_group) // group_rows
    return batch, pid_m, pid_n


@triton.autotune(configs=_configs(), key=["M_CLASS", "N", "K", "B_KMAJOR"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.jit(do_not_specialize=["M_CLASS"])
def matmul_tma_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K, BATCH,
                      stride_ab, stride_am, stride_bb, stride_bk, stride_bn,
                      stride_cb, stride_cm, stride_biasb, stride_biasm, stride_biasn,
                      alpha, beta, M_CLASS,
                      HAS_BIAS: tl.constexpr, B_KMAJOR: tl.constexpr, NUM_SMS: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                      EPILOGUE_SUBTILE: tl.constexpr):
    """C[b] = alpha * A[b] @ B[b] + beta * bias[b]: A (BATCH, M, K) row-major, B (BATCH, K, N)
    K-major (B_KMAJOR: its columns contiguous, as W^T) or N-major, C (BATCH, M, N) row-major."""
    dtype = c_ptr.dtype.element_ty
    a_desc = tl.make_tensor_descriptor(a_ptr, shape=[BATCH, M, K], strides=[stride_ab, stride_am, 1],
                                       block_shape=[1, BLOCK_M, BLOCK_K])
    if B_KMAJOR:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[BATCH, N, K], strides=[stride_bb, stride_bn, 1],
                                           block_shape=[1, BLOCK_N, BLOCK_K])
    else:
        b_desc = tl.make_tensor_descriptor(b_ptr, shape=[BATCH, K, N], strides=[stride_bb, stride_bk, 1],
                                           block_shape=[1, BLOCK_K, BLOCK_N])
    if EPILOGUE_SUBTILE:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[BATCH, M, N], strides=[stride_cb, stride_cm, 1],
                                           block_shape=[1, BLOCK_M, BLOCK_N // 2])
    else:
        c_desc = tl.make_tensor_descriptor(c_ptr, shape=[BATCH, M, N], strides=[stride_cb, stride_cm, 1],
                                           block_shape=[1, BLOCK_M, BLOCK_N])
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = BATCH * num_pid_m * num_pid_n
    k_tiles = tl.cdiv(K, BLOCK_K)
    # Flattened into the K loop, the pipeliner prefetches the next tile's first K blocks during
    # this tile's epilogue: attention's scores of 2048 tokens (K = 128, few K blocks a tile) went
    # from 1.71x to 1.08x cuBLAS's time (measurements/gpu-logs/tma-flatten/).
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):
        batch, pid_m, pid_n = _tile_of(tile, num_pid_m, num_pid_n, GROUP_M)
        off_m = pid_m * BLOCK_M
        off_n = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(k_tiles):
            off_k = ki * BLOCK_K
            a = a_desc.load([batch, off_m, off_k]).reshape(BLOCK_M, BLOCK_K)
            if B_KMAJOR:
                b = b_desc.load([batch, off_n, off_k]).reshape(BLOCK_N, BLOCK_K)
                acc = tl.dot(a, b.T, acc)
            else:
                b = b_desc.load([batch, off_k, off_n]).reshape(BLOCK_K, BLOCK_N)
                acc = tl.dot(a, b, acc)
        acc = acc * alpha
        if HAS_BIAS:
            offs_m = off_m + tl.arange(0, BLOCK_M)
            offs_n = off_n + tl.arange(0, BLOCK_N)
            live = (offs_m[:, None] < M) & (offs_n[None, :] < N)
            bias = tl.load(bias_ptr + batch * stride_biasb + offs_m[:, None] * stride_biasm
                           + offs_n[None, :] * stride_biasn, mask=live, other=0.0)
            acc += bias.to(tl.float32) * beta
        if EPILOGUE_SUBTILE:
            halves = tl.reshape(acc, (BLOCK_M, 2, BLOCK_N // 2))
            halves = tl.permute(halves, (0, 2, 1))
            left, right = tl.split(halves)
            c_desc.store([batch, off_m, off_n], left.to(dtype).reshape(1, BLOCK_M, BLOCK_N // 2))
            c_desc.store([batch, off_m, off_n + BLOCK_N // 2], right.to(dtype).reshape(1, BLOCK_M, BLOCK_N // 2))
        else:
            c_desc.store([batch, off_m, off_n], acc.to(dtype).reshape(1, BLOCK_M, BLOCK_N))
