"""mm, addmm and bmm with few rows (M <= 64: the tokens of a decode step) in float16 and bfloat16.
Such a product reads the whole weight once and is bound by memory, so the kernel is laid out for
the weight: a program owns BLOCK_N columns of C (rows of B^T, contiguous in nn.Linear's layout)
and walks K once, computing C^T = B^T A^T so that the wide side of the tile is the weight's and the
token side (BLOCK_M, padded to the 16 rows a tensor-core dot needs) is narrow. Small BLOCK_N
spreads even a 4096-wide weight over 256 programs. The token tile is given by the caller (the next
power of two of M, at least 16), so that one tuning serves every M of that size class."""
import triton
import triton.language as tl


# Tiles of the weight a dependent launch asks of L2 before it waits. None: on an H100 the
# prefetch of 4 tiles made the batch-1 decode step with dependent launches 1.019x the serial
# step's time, and 0.997x without it (the step with every product ours 1.075 against 1.043 ms);
# at batch 32 it made no difference (measurements/gpu-logs/h100-2026-12-05-afternoon/). Written
# here rather than read from the environment, so that a process without Python can trust the
# compiled variants (a value computed at import cannot be checked offline).
PREFETCH_TILES: tl.constexpr = tl.constexpr(0)
# Where a dependent product lets the kernel after it launch: at its start, once its
# predecessor's writes are seen, or (True) after its main loop. After the loop was no faster at
# batch 1 and 2 % slower at batch 32 on the same H100.
DEPENDENTS_AFTER_LOOP: tl.constexpr = tl.constexpr(False)


def _configs():
    configs = []
    for block_n, block_k, warps, stages in [
        (16, 256, 4, 4), (16, 256, 4, 6), (16, 512, 4, 4), (32, 256, 4, 4), (32, 256, 4, 6), (32, 128, 4, 6),
        (32, 512, 8, 3), (64, 128, 4, 4), (64, 256, 8, 4), (64, 128, 8, 6), (128, 128, 8, 4), (128, 64, 4, 6),
    ]:
        configs.append(triton.Config({"BLOCK_N": block_n, "BLOCK_K": block_k}, num_warps=warps, num_stages=stages))
    return configs


def _prune(configs, named_args, **kwargs):
    """Stages that fit the shared memory of sm_90 (A and B tiles per stage), and no tile wider than
    the weight or deeper than K."""
    n, k = named_args["N"], named_args["K"]
    block_m = named_args.get("BLOCK_M", kwargs.get("BLOCK_M"))  # a keyword in Python callers
    element = named_args["a_ptr"].element_size()

    def fits(c):
        bn, bk = c.kwargs["BLOCK_N"], c.kwargs["BLOCK_K"]
        staged = c.num_stages * (bn + block_m) * bk * element
        return staged <= 200 * 1024 and bn <= max(16, triton.next_power_of_2(n)) and bk <= max(64, triton.next_power_of_2(k))

    kept = [c for c in configs if fits(c)]
    return kept or [configs[0]]


@triton.jit
def _after_predecessor(GDC: tl.constexpr, LOOP_FOLLOWS: tl.constexpr = False):
    """Launched dependent on the kernel before it (common/dependent_launch.h): its writes first,
    then the next kernel may start launching (after the main loop instead, where one follows and
    DEPENDENTS_AFTER_LOOP says so: _after_main_loop)."""
    if GDC:
        if LOOP_FOLLOWS and DEPENDENTS_AFTER_LOOP:
            tl.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [], dtype=tl.int32, is_pure=False, pack=1)
        else:
            tl.inline_asm_elementwise("griddepcontrol.wait; griddepcontrol.launch_dependents; // $0", "=r", [],
                                      dtype=tl.int32, is_pure=False, pack=1)


@triton.jit
def _after_main_loop(GDC: tl.constexpr):
    if GDC and DEPENDENTS_AFTER_LOOP:
        tl.inline_asm_elementwise("griddepcontrol.launch_dependents; // $0", "=r", [], dtype=tl.int32, is_pure=False,
                                  pack=1)


@triton.jit
def _prefetch_rows(row_ptrs, nbytes, BLOCK_N: tl.constexpr):
    """Asks L2 for the first `nbytes` of each weight row at row_ptrs (contiguous, K-major): the
    weight does not depend on the kernel before, so a dependent launch streams its first tiles
    while that kernel finishes. Each start is aligned down to 16 bytes and the length is a multiple
    of 16 no longer than what is left of the row, so the range stays within the row and the one
    before it."""
    if nbytes >= 16:
        sizes = tl.zeros([BLOCK_N], dtype=tl.int32) + nbytes // 16 * 16
        tl.inline_asm_elementwise(
            "{ .reg .b64 start; and.b64 start, $1, -16; cp.async.bulk.prefetch.L2.global [start], $2; } // $0",
            "=r,l,r", [row_ptrs, sizes], dtype=tl.int32, is_pure=False, pack=1)


@triton.autotune(configs=_configs(), key=["BLOCK_M", "N", "K"], prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({
    "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
    "INDEX64": lambda args: max(args["M"] * args["stride_am"], args["K"] * args["stride_ak"],
                                args["K"] * args["stride_bk"], args["N"] * args["stride_bn"],
                                args["M"] * args["stride_cm"], args["N"] * args["stride_cn"]) >= 2147483648,
})
@triton.jit
def matmul_skinny_kernel(a_ptr, b_ptr, c_ptr, bias_ptr, M, N, K,
                         stride_ab, stride_am, stride_ak, stride_bb, stride_bk, stride_bn,
                         stride_cb, stride_cm, stride_cn, stride_biasb, stride_biasm, stride_biasn,
                         alpha, beta, batch_offset,
                         HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr,
                         BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr, INDEX64: tl.constexpr,
                         GDC: tl.constexpr = False):
    """C[b] = alpha * A[b] @ B[b] + beta * bias[b]; program (column block, batch). M <= BLOCK_M.
    GDC: launched dependent; a K-major weight's first PREFETCH_TILES tiles (none by default) are
    asked of L2 before the wait for the kernel before."""
    pid_n = tl.program_id(0)
    batch = (tl.program_id(1) + batch_offset).to(tl.int64)
    # columns past the edge wrap around (their results are not stored): loads stay unmasked along N
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_m = tl.arange(0, BLOCK_M)
    offs_k = tl.arange(0, BLOCK_K)
    if INDEX64:
        offs_n = offs_n.to(tl.int64)
        offs_m = offs_m.to(tl.int64)
    rows_live = offs_m < M
    if GDC and stride_bk == 1 and PREFETCH_TILES > 0:
        element: tl.constexpr = b_ptr.dtype.element_ty.primitive_bitwidth // 8
        _prefetch_rows(b_ptr + batch * stride_bb + offs_n * stride_bn, tl.minimum(K, PREFETCH_TILES * BLOCK_K) * element,
                       BLOCK_N)
    _after_predecessor(GDC, True)
    w_ptrs = b_ptr + batch * stride_bb + offs_n[:, None] * stride_bn + offs_k[None, :] * stride_bk
    x_ptrs = a_ptr + batch * stride_ab + offs_m[None, :] * stride_am + offs_k[:, None] * stride_ak
    acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
    for k0 in range(0, tl.cdiv(K, BLOCK_K)):
        if EVEN_K:
            w = tl.load(w_ptrs)
            x = tl.load(x_ptrs, mask=rows_live[None, :], other=0.0)
        else:
            k_left = K - k0 * BLOCK_K
            w = tl.load(w_ptrs, mask=offs_k[None, :] < k_left, other=0.0)
            x = tl.load(x_ptrs, mask=rows_live[None, :] & (offs_k[:, None] < k_left), other=0.0)
        acc = tl.dot(w, x, acc)
        w_ptrs += BLOCK_K * stride_bk
        x_ptrs += BLOCK_K * stride_ak
    _after_main_loop(GDC)
    acc = acc * alpha
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if INDEX64:
        offs_n = offs_n.to(tl.int64)
    mask = (offs_n[:, None] < N) & rows_live[None, :]
    if HAS_BIAS:
        bias = tl.load(bias_ptr + batch * stride_biasb + offs_m[None, :] * stride_biasm + offs_n[:, None] * stride_biasn,
                       mask=mask, other=0.0)
        acc += bias.to(tl.float32) * beta
    c_ptrs = c_ptr + batch * stride_cb + offs_m[None, :] * stride_cm + offs_n[:, None] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=mask)


# ---- split-K: few rows against a deep weight ------------------------------------------------------
# At 32 to 64 rows, a program that owns few columns re-reads the whole of A from L2 (64 x 14336
# activations for each of 256 column blocks: four times the weight's own traffic); wide column
# blocks cut that but leave most SMs idle. Splitting K as well keeps both: each program owns
# BLOCK_N columns over one K-slice and writes its partial sums (float32) to a workspace of
# SPLIT_K x M x N, which split_k_reduce sums in a fixed order (deterministic, no atomics).

def _split_configs():
    configs = []
    for block_n, block_k, warps, stages in [
        (32, 128, 4, 4), (32, 256, 4, 4), (64, 128, 4, 4), (64, 128, 4, 6), (64, 256, 4, 4), (64, 256, 8, 3),
        (128, 64, 4, 6), (128, 128, 8, 4), (128, 128, 4, 4),
    ]:
        configs.append(triton.Config({"BLOCK_N": block_n, "BLOCK_K": block_k}, num_warps=warps, num_stages=stages))
    return configs


@triton.autotune(configs=_split_configs(), key=["BLOCK_M", "N", "K", "SPLIT_K"],
                 prune_configs_by={"early_config_prune": _prune})
@triton.heuristics({
    "EVEN_K": lambda args: args["K"] % args["BLOCK_K"] == 0,
    "INDEX64": lambda args: max(args["M"] * args["stride_am"], args["K"] * args["stride_ak"],
                                args["K"] * args["stride_bk"], args["N"] * args["stride_bn"],
                                args["SPLIT_K"] * args["M"] * args["N"]) >= 2147483648,
})
@triton.jit
def matmul_skinny_split_kernel(a_ptr, b_ptr, partial_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn,
                               BLOCK_M: tl.constexpr, SPLIT_K: tl.constexpr, BLOCK_N: tl.constexpr,
                               BLOCK_K: tl.constexpr, EVEN_K: tl.constexpr, INDEX64: tl.constexpr,
                               GDC: tl.constexpr = False):
    """partial[s] = A[:, slice s of K] @ B[slice s of K, :], float32; program (column block, s).
    GDC: as matmul_skinny_kernel's (the prefetch from the slice's start)."""
    pid_n = tl.program_id(0)
    pid_k = tl.program_id(1)
    blocks = tl.cdiv(K, BLOCK_K)
    per_split = tl.cdiv(blocks, SPLIT_K)
    first = pid_k * per_split
    last = tl.minimum(first + per_split, blocks)
    offs_n = (pid_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_m = tl.arange(0, BLOCK_M)
    lanes = tl.arange(0, BLOCK_K)
    if INDEX64:
        offs_n = offs_n.to(tl.int64)
        offs_m = offs_m.to(tl.int64)
    rows_live = offs_m < M
    start = first * BLOCK_K
    if INDEX64:
        start = start.to(tl.int64)
    if GDC and stride_bk == 1 and PREFETCH_TILES > 0:
        element: tl.constexpr = b_ptr.dtype.element_ty.primitive_bitwidth // 8
        slice_length = tl.minimum(K - start, (last - first) * BLOCK_K)
        _prefetch_rows(b_ptr + offs_n * stride_bn + start, tl.minimum(slice_length, PREFETCH_TILES * BLOCK_K) * element,
                       BLOCK_N)
    _after_predecessor(GDC, True)
    w_ptrs = b_ptr + offs_n[:, None] * stride_bn + (start + lanes[None, :]) * stride_bk
    x_ptrs = a_ptr + offs_m[None, :] * stride_am + (start + lanes[:, None]) * stride_ak
    acc = tl.zeros([BLOCK_N, BLOCK_M], dtype=tl.float32)
    for block in range(first, last):
        if EVEN_K:
            w = tl.load(w_ptrs)
            x = tl.load(x_ptrs, mask=rows_live[None, :], other=0.0)
        else:
            k_left = K - block * BLOCK_K
            w = tl.load(w_ptrs, mask=lanes[None, :] < k_left, other=0.0)
            x = tl.load(x_ptrs, mask=rows_live[None, :] & (lanes[:, None] < k_left), other=0.0)
        acc = tl.dot(w, x, acc)
        w_ptrs += BLOCK_K * stride_bk
        x_ptrs += BLOCK_K * stride_ak
    _after_main_loop(GDC)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    if INDEX64:
        offs_n = offs_n.to(tl.int64)
    mask = (offs_n[:, None] < N) & rows_live[None, :]
    base = pid_k.to(tl.int64) * M * N
    tl.store(partial_ptr + base + offs_m[None, :] * N + offs_n[:, None], acc, mask=mask)


@triton.jit
def split_k_reduce(partial_ptr, c_ptr, M, N, stride_cm, stride_cn, SPLIT_K: tl.constexpr, BLOCK: tl.constexpr,
                   GDC: tl.constexpr = False):
    """C = sum over s of partial[s], in order, cast to C's dtype."""
    _after_predecessor(GDC)
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    live = offs < M * N
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for s in tl.static_range(SPLIT_K):
        acc += tl.load(partial_ptr + s * M * N + offs, mask=live, other=0.0)
    row = offs // N
    col = offs % N
    tl.store(c_ptr + row * stride_cm + col * stride_cn, acc.to(c_ptr.dtype.element_ty), mask=live)
