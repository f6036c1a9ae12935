"""mm and addmm on Hopper and newer in float16 and bfloat16 for 65 to 512 rows against nn.Linear's
weight (B = W^T, K-major): one output tile per program, sized so that a product makes about one
wave of programs over the SMs.

At these sizes a product still reads its weight near the memory's bandwidth, and what decides the
time is how evenly the tiles cover the SMs. cuBLAS gets there with tiles of 96, 192 or 448 weight
rows (nvjet kernels, measurements/gpu-logs/cublas-kernels/); Triton's blocks are powers of two, so a tile
here is up to three dots over one token block, 64 + 32 or 128 + 64 + 32 weight rows wide, each with
its own accumulator. Programs that share a weight tile are adjacent in launch order, so the
weight comes from DRAM once.

The operands arrive as host-side descriptors, which each config's pre_hook gives its block shapes:
built on the device, four descriptors cost every program about a microsecond before its first
load (measurements/gpu-logs/cublas-kernels/). Out-of-bounds reads are zeros.

The tuning key is the M-size class (M rounded up to a multiple of 64, given by the caller: how
many programs a tiling makes depends on nothing finer, and 384 rows tile otherwise than 512), N
and K; the prune keeps the tilings that fill 3/4 to all of one wave on this device. Tilings of
several waves tune well only while the weight stays in L2, which an autotuner's repeated calls
let it do and a model's layers do not: at 512 rows they chose tiles twice as slow as one wave's.
"""
import triton
import triton.language as tl

_PIECES = [(64, 0, 0), (128, 0, 0), (64, 32, 0), (128, 64, 0), (128, 64, 32)]
_SHARED_MEMORY = 221 * 1024  # sm_90's per-block limit, less what the compiler keeps for barriers


def _tiles(nargs):
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b0_desc"].block_shape = [nargs["BLOCK_N0"], nargs["BLOCK_K"]]
    if nargs["BLOCK_N1"] > 0:
        nargs["b1_desc"].block_shape = [nargs["BLOCK_N1"], nargs["BLOCK_K"]]
    if nargs["BLOCK_N2"] > 0:
        nargs["b2_desc"].block_shape = [nargs["BLOCK_N2"], nargs["BLOCK_K"]]


def _configs():
    configs = []
    for bm in (64, 128):
        for pieces in _PIECES:
            for bk in (64, 128):
                width = sum(pieces)
                stages = min(6 if bk == 64 else 4, _SHARED_MEMORY // ((bm + width) * bk * 2))
                configs.append(triton.Config({"BLOCK_M": bm, "BLOCK_N0": pieces[0], "BLOCK_N1": pieces[1],
                                              "BLOCK_N2": pieces[2], "BLOCK_K": bk},
                                             num_warps=8 if bm * width >= 128 * 128 else 4, num_stages=stages,
                                             pre_hook=_tiles))
    return configs


def _programs(c, m, n):
    width = c.kwargs["BLOCK_N0"] + c.kwargs["BLOCK_N1"] + c.kwargs["BLOCK_N2"]
    return triton.cdiv(m, c.kwargs["BLOCK_M"]) * triton.cdiv(n, width)


def _prune(configs, named_args, **kwargs):
    """Tilings whose programs fill 3/4 to all of one wave, a tile no wider than the next power of
    two of N. Where none does: the one-wave tiling of the most programs, or, where every tiling
    takes more than a wave, the one of the fewest."""
    arguments = {**named_args, **kwargs}  # NUM_SMS arrives by keyword from Python, by position from C++
    m, n, sms = arguments["M"], arguments["N"], arguments["NUM_SMS"]

    def fills(c):
        return 0.75 * sms <= _programs(c, m, n) <= sms and c.kwargs["BLOCK_N0"] <= max(64, triton.next_power_of_2(n))

    kept = [c for c in configs if fills(c)]
    one_wave = [c for c in configs if _programs(c, m, n) <= sms]
    if kept:
        return kept
    if one_wave:
        return [max(one_wave, key=lambda c: _programs(c, m, n))]
    return [min(configs, key=lambda c: _programs(c, m, n))]


@triton.autotune(configs=_configs(), key=["M_CLASS", "N", "K"], prune_configs_by={"early_config_prune": _prune})
@triton.jit(do_not_specialize=["M_CLASS"])
def matmul_wave_kernel(a_desc, b0_desc, b1_desc, b2_desc, c_ptr, bias_ptr, M, N, K, stride_cm, stride_biasm,
                       stride_biasn, alpha, beta, M_CLASS,
                       HAS_BIAS: tl.constexpr, NUM_SMS: tl.constexpr, BLOCK_M: tl.constexpr,
                       BLOCK_N0: tl.constexpr, BLOCK_N1: tl.constexpr, BLOCK_N2: tl.constexpr,
                       BLOCK_K: tl.constexpr):
    """C = alpha * A @ B + beta * bias over descriptors of A (M, K) and of B^T (N, K) (B K-major,
    as nn.Linear's W^T), one for each piece of the tile; C (M, N) row-major. A piece of width 0 is
    absent and its descriptor unread."""
    num_m = tl.cdiv(M, BLOCK_M)
    pid_m = tl.program_id(0) % num_m
    pid_n = tl.program_id(0) // num_m
    off_m = pid_m * BLOCK_M
    off_n = pid_n * (BLOCK_N0 + BLOCK_N1 + BLOCK_N2)
    acc0 = tl.zeros((BLOCK_M, BLOCK_N0), dtype=tl.float32)
    if BLOCK_N1 > 0:
        acc1 = tl.zeros((BLOCK_M, BLOCK_N1), dtype=tl.float32)
    if BLOCK_N2 > 0:
        acc2 = tl.zeros((BLOCK_M, BLOCK_N2), dtype=tl.float32)
    for ki in range(tl.cdiv(K, BLOCK_K)):
        off_k = ki * BLOCK_K
        a = a_desc.load([off_m, off_k])
        acc0 = tl.dot(a, b0_desc.load([off_n, off_k]).T, acc0)
        if BLOCK_N1 > 0:
            acc1 = tl.dot(a, b1_desc.load([off_n + BLOCK_N0, off_k]).T, acc1)
        if BLOCK_N2 > 0:
            acc2 = tl.dot(a, b2_desc.load([off_n + BLOCK_N0 + BLOCK_N1, off_k]).T, acc2)
    offs_m = off_m + tl.arange(0, BLOCK_M)
    _store_piece(c_ptr, bias_ptr, acc0, offs_m, off_n, M, N, stride_cm, stride_biasm, stride_biasn, alpha, beta,
                 HAS_BIAS, BLOCK_N0)
    if BLOCK_N1 > 0:
        _store_piece(c_ptr, bias_ptr, acc1, offs_m, off_n + BLOCK_N0, M, N, stride_cm, stride_biasm, stride_biasn,
                     alpha, beta, HAS_BIAS, BLOCK_N1)
    if BLOCK_N2 > 0:
        _store_piece(c_ptr, bias_ptr, acc2, offs_m, off_n + BLOCK_N0 + BLOCK_N1, M, N, stride_cm, stride_biasm,
                     stride_biasn, alpha, beta, HAS_BIAS, BLOCK_N2)


@triton.jit
def _store_piece(c_ptr, bias_ptr, acc, offs_m, off_n, M, N, stride_cm, stride_biasm, stride_biasn, alpha, beta,
                 HAS_BIAS: tl.constexpr, WIDTH: tl.constexpr):
    offs_n = off_n + tl.arange(0, WIDTH)
    live = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    acc = acc * alpha
    if HAS_BIAS:
        bias = tl.load(bias_ptr + offs_m[:, None] * stride_biasm + offs_n[None, :] * stride_biasn, mask=live,
                       other=0.0)
        acc += bias.to(tl.float32) * beta
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :], acc.to(c_ptr.dtype.element_ty), mask=live)
