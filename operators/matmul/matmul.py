"""mm, addmm and bmm: one autotuned kernel for C[b] = alpha * A[b] @ B[b] + beta * bias[b], any
strides (transposed inputs are read in place), float16, bfloat16, float32 (IEEE or TF32, as
torch.backends.cuda.matmul.allow_tf32 says) and float64. Configs too large for a problem are
pruned before tuning, so that small shapes do not compile and time tiles they cannot fill."""
import triton
import triton.language as tl


def _configs():
    configs = []
    for bm, bn, bk, stages, warps in [
        (128, 256, 64, 3, 8), (256, 128, 64, 3, 8), (128, 128, 64, 4, 8), (128, 128, 32, 4, 4),
        (64, 256, 32, 4, 4), (128, 64, 64, 4, 4), (64, 128, 64, 4, 4), (64, 64, 64, 4, 4),
        (32, 64, 64, 4, 4), (16, 64, 128, 4, 4), (16, 128, 64, 4, 4), (32, 128, 64, 4, 4),
        (128, 128, 128, 2, 8), (64, 128, 128, 3, 4),  # short K (attention's head dims): one or two steps
    ]:
        configs.append(triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": 8},
                                     num_stages=stages, num_warps=warps))
    return configs


def _prune(configs, named_args, **kwargs):
    """Tiles no larger than the problem (rounded up to 16), and for float64 and IEEE float32 (no
    tensor-core path of that size) the smaller tiles only."""
    m, n, k = named_args["M"], named_args["N"], named_args["K"]
    element = named_args["a_ptr"].element_size()
    wide = element >= 4 and named_args.get("PRECISION", "ieee") == "ieee"

    def staged_bytes(c):  # the pipeline's A and B tiles in shared memory
        bm, bn, bk = c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"]
        return c.num_stages * (bm * bk + bk * bn) * element

    def fits(c):
        bm, bn, bk = c.kwargs["BLOCK_M"], c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"]
        if bm > max(16, triton.next_power_of_2(m)) or bn > max(64, triton.next_power_of_2(n)):
            return False
        if bk > max(32, triton.next_power_of_2(k)) or staged_bytes(c) > 200 * 1024:
            return False
        return not wide or (bm * bn <= 128 * 128 and bk <= 32)

    kept = [c for c in configs if fits(c)]
    return kept or [min(configs, key=staged_bytes)]


@triton.autotune(configs=_configs(), key=["M", "N", "K"], prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({
    "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
    # a matrix spanning 2^31 elements needs 64-bit offsets within it
    "INDEX64": lambda args: max(args["M"] * args["stride_am"], args["K"] * args["stride_ak"],
                                args["K"] * args["stride_bk"], args["N"] * args["stride_bn"],
                                args["M"] * args["stride_cm"], args["N"] * args["stride_cn"]) >= 2147483648,
})
@triton.jit
def matmul_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                  stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                  stride_cb, stride_cm, stride_cn, stride_biasb, stride_biasm, stride_biasn,
                  alpha, beta, batch_offset,
                  HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr,
                  EVEN_K: tl.constexpr, INDEX64: tl.constexpr):
    pid = tl.program_id(0)
    batch = (tl.program_id(1) + batch_offset).to(tl.int64)
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    group = GROUP_M * num_pid_n
    first_m = (pid // group) * GROUP_M
    group_m = min(num_pid_m - first_m, GROUP_M)
    pid_m = first_m + ((pid % group) % group_m)
    pid_n = (pid % group) // group_m
    # rows and columns past the edge wrap around (their results are not stored), which keeps the
    # loads contiguous and unmasked along M and N
    offs_m = (pid_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
    a_ptrs = a_ptr + batch * stride_ab + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + batch * stride_bb + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    ACC: tl.constexpr = tl.float64 if a_ptr.dtype.element_ty == tl.float64 else tl.float32
    acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=ACC)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            a = tl.load(a_ptrs)
            b = tl.load(b_ptrs)
        else:
            k_left = K - k0 * BLOCK_K
            a = tl.load(a_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            b = tl.load(b_ptrs, mask=offs_k[:, None] < k_left, other=0.0)
        if PRECISION == "ieee":
            acc = tl.dot(a, b, acc, input_precision="ieee", out_dtype=ACC)
        else:
            acc = tl.dot(a, b, acc, out_dtype=ACC)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    acc = acc * alpha
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if INDEX64:
        offs_m = offs_m.to(tl.int64)
        offs_n = offs_n.to(tl.int64)
    mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    if HAS_BIAS:
        bias = tl.load(bias_ptr + batch * stride_biasb + offs_m[:, None] * stride_biasm + offs_n[None, :] * stride_biasn,
                       mask=mask, other=0.0)
        acc += bias.to(ACC) * beta
    c_ptrs = c_ptr + batch * stride_cb + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)
