"""Reductions over the middle dim of a contiguous (M, N, K) view: sum, mean, amax, max and min with
their indices, argmax. Program (m, k-block, split) reduces n in [split * CHUNK, (split + 1) *
CHUNK); with several splits it writes partial results (M, SPLIT, K), which a second launch with
PARTIAL_IN reduces. NaN is the largest value (it propagates); ties go to the first index, as in
ATen. Sums accumulate in float32 (float64 for double, int64 for integers)."""
import triton
import triton.language as tl

NONE = tl.constexpr(9223372036854775807)  # the index of an empty slot


@triton.jit
def _takes(v1, i1, v2, i2, IS_MAX: tl.constexpr):
    """Whether (v1, i1) beats (v2, i2): a filled slot beats an empty one; NaN beats numbers; then
    the larger (smaller) value; then the first index."""
    nan1 = v1 != v1
    nan2 = v2 != v2
    if IS_MAX:
        strictly = (v1 > v2) | (nan1 & ~nan2)
    else:
        strictly = (v1 < v2) | (nan1 & ~nan2)
    tie = (v1 == v2) | (nan1 & nan2)
    return (i2 == NONE) | ((i1 != NONE) & (strictly | (tie & (i1 < i2))))


@triton.jit
def _max_combine(v1, i1, v2, i2):
    take = _takes(v1, i1, v2, i2, True)
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@triton.jit
def _min_combine(v1, i1, v2, i2):
    take = _takes(v1, i1, v2, i2, False)
    return tl.where(take, v1, v2), tl.where(take, i1, i2)


@triton.jit
def _nan_max(a, b):
    return tl.maximum(a, b, propagate_nan=tl.PropagateNan.ALL)


@triton.jit
def _lane_step(x, i, mask, best, best_i, IS_MAX: tl.constexpr):
    """One step of a lane's running best: later positions come with larger indices, so a strict
    comparison keeps the first; best_i < 0 marks a lane that has seen nothing yet."""
    if x.dtype.is_floating():
        if IS_MAX:
            better = (x > best) | ((x != x) & (best == best))
        else:
            better = (x < best) | ((x != x) & (best == best))
    else:
        better = x > best if IS_MAX else x < best
    take = mask & ((best_i < 0) | better)
    return tl.where(take, x, best), tl.where(take, i, best_i)


@triton.jit(do_not_specialize=["M", "K", "CHUNK"])
def reduce_kernel(x_ptr, idx_in_ptr, out_ptr, idx_out_ptr, M, N, K, CHUNK, divisor,
                  OP: tl.constexpr, ACC: tl.constexpr, PARTIAL_IN: tl.constexpr,
                  BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, INDEX64: tl.constexpr):
    """OP: "sum", "mean" (sum / divisor), "amax", "max", "min", "argmax". ACC: "fp32", "fp64" or
    "i64", the type sums accumulate in; max-like ops compare in the input's type (bool as int8)."""
    pid_m = tl.program_id(0)
    if INDEX64:
        pid_m = pid_m.to(tl.int64)
    pid_k = tl.program_id(1)
    split = tl.program_id(2)
    num_splits = tl.num_programs(2)
    offs_k = pid_k * BLOCK_K + tl.arange(0, BLOCK_K)
    k_mask = offs_k < K
    n_start = split * CHUNK
    n_end = tl.minimum(n_start + CHUNK, N)
    base = pid_m * N * K
    if OP == "sum" or OP == "mean":
        ACC_T: tl.constexpr = tl.float32 if ACC == "fp32" else (tl.float64 if ACC == "fp64" else tl.int64)
        acc = tl.zeros([BLOCK_N, BLOCK_K], ACC_T)
        for n0 in range(n_start, n_end, BLOCK_N):
            offs_n = n0 + tl.arange(0, BLOCK_N)
            mask = (offs_n[:, None] < n_end) & k_mask[None, :]
            acc += tl.load(x_ptr + base + offs_n[:, None] * K + offs_k[None, :], mask=mask, other=0).to(ACC_T)
        result = tl.sum(acc, axis=0)
        if OP == "mean":
            result = result / divisor
    else:
        IN: tl.constexpr = x_ptr.dtype.element_ty
        # half types compare as float32 (exactly, and faster); bool as int8
        CMP: tl.constexpr = tl.int8 if IN == tl.int1 else (tl.float32 if IN == tl.float16 or IN == tl.bfloat16 else IN)
        best = tl.zeros([BLOCK_N, BLOCK_K], CMP)
        IDX: tl.constexpr = tl.int64 if (INDEX64 or PARTIAL_IN) else tl.int32
        best_i = tl.full([BLOCK_N, BLOCK_K], -1, IDX)
        for n0 in range(n_start, n_end, BLOCK_N):
            offs_n = n0 + tl.arange(0, BLOCK_N)
            mask = (offs_n[:, None] < n_end) & k_mask[None, :]
            offsets = base + offs_n[:, None] * K + offs_k[None, :]
            x = tl.load(x_ptr + offsets, mask=mask, other=0).to(CMP)
            if PARTIAL_IN:
                i = tl.load(idx_in_ptr + offsets, mask=mask, other=0)
                take = mask & _takes(x, i, best, tl.where(best_i < 0, NONE, best_i), OP != "min")
                best = tl.where(take, x, best)
                best_i = tl.where(take, i, best_i)
            else:
                i = offs_n[:, None].to(IDX) + tl.zeros([BLOCK_N, BLOCK_K], IDX)
                best, best_i = _lane_step(x, i, mask, best, best_i, OP != "min")
        best_i = tl.where(best_i < 0, NONE, best_i.to(tl.int64))
        if OP == "min":
            result, result_i = tl.reduce((best, best_i), 0, _min_combine)
        else:
            result, result_i = tl.reduce((best, best_i), 0, _max_combine)
        if OP != "amax":
            tl.store(idx_out_ptr + (pid_m * num_splits + split) * K + offs_k, result_i, mask=k_mask)
    if OP != "argmax":
        out_offsets = (pid_m * num_splits + split) * K + offs_k
        OUT: tl.constexpr = out_ptr.dtype.element_ty
        if OUT == tl.int1:
            tl.store(out_ptr + out_offsets, result != 0, mask=k_mask)
        else:
            tl.store(out_ptr + out_offsets, result.to(OUT), mask=k_mask)


@triton.jit(do_not_specialize=["M", "CHUNK"])
def reduce_rows_kernel(x_ptr, idx_in_ptr, out_ptr, idx_out_ptr, M, N, CHUNK, divisor,
                       OP: tl.constexpr, ACC: tl.constexpr, PARTIAL_IN: tl.constexpr,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, INDEX64: tl.constexpr):
    """reduce_kernel for K == 1: BLOCK_M contiguous rows per program, so that short rows still fill
    a block. Program (row-block, split); out and idx_out are (M, SPLIT)."""
    pid = tl.program_id(0)
    if INDEX64:
        pid = pid.to(tl.int64)
    split = tl.program_id(1)
    num_splits = tl.num_programs(1)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    row_mask = rows < M
    n_start = split * CHUNK
    n_end = tl.minimum(n_start + CHUNK, N)
    base = rows[:, None] * N
    if OP == "sum" or OP == "mean":
        ACC_T: tl.constexpr = tl.float32 if ACC == "fp32" else (tl.float64 if ACC == "fp64" else tl.int64)
        acc = tl.zeros([BLOCK_M, BLOCK_N], ACC_T)
        for n0 in range(n_start, n_end, BLOCK_N):
            offs_n = n0 + tl.arange(0, BLOCK_N)
            mask = row_mask[:, None] & (offs_n[None, :] < n_end)
            acc += tl.load(x_ptr + base + offs_n[None, :], mask=mask, other=0).to(ACC_T)
        result = tl.sum(acc, axis=1)
        if OP == "mean":
            result = result / divisor
    else:
        IN: tl.constexpr = x_ptr.dtype.element_ty
        # half types compare as float32 (exactly, and faster); bool as int8
        CMP: tl.constexpr = tl.int8 if IN == tl.int1 else (tl.float32 if IN == tl.float16 or IN == tl.bfloat16 else IN)
        IDX: tl.constexpr = tl.int64 if (INDEX64 or PARTIAL_IN) else tl.int32
        if CMP.is_floating() and not PARTIAL_IN:
            # Note [Lean float rows]: masked lanes load the identity (-inf for max, +inf for min),
            # which a strict comparison never takes, so a step is a compare, a NaN test and two
            # selects; amax keeps no index at all.
            IDENTITY: tl.constexpr = float("-inf") if OP != "min" else float("inf")
            best = tl.full([BLOCK_M, BLOCK_N], IDENTITY, CMP)
            best_i = tl.zeros([BLOCK_M, BLOCK_N], IDX)
            for n0 in range(n_start, n_end, BLOCK_N):
                offs_n = n0 + tl.arange(0, BLOCK_N)
                mask = row_mask[:, None] & (offs_n[None, :] < n_end)
                x = tl.load(x_ptr + base + offs_n[None, :], mask=mask, other=IDENTITY).to(CMP)
                if OP == "amax":
                    best = tl.maximum(best, x, propagate_nan=tl.PropagateNan.ALL)
                else:
                    if OP == "min":
                        better = (x < best) | ((x != x) & (best == best))
                    else:
                        better = (x > best) | ((x != x) & (best == best))
                    best = tl.where(better, x, best)
                    best_i = tl.where(better, offs_n[None, :].to(IDX), best_i)
            if OP == "amax":
                result = tl.reduce(best, 1, _nan_max)
            else:
                # a lane that took nothing holds (identity, 0): it ties only when every element is
                # the identity, and then position 0 is the answer
                best_i = best_i.to(tl.int64)
                if OP == "min":
                    result, result_i = tl.reduce((best, best_i), 1, _min_combine)
                else:
                    result, result_i = tl.reduce((best, best_i), 1, _max_combine)
        else:
            best = tl.zeros([BLOCK_M, BLOCK_N], CMP)
            best_i = tl.full([BLOCK_M, BLOCK_N], -1, IDX)
            for n0 in range(n_start, n_end, BLOCK_N):
                offs_n = n0 + tl.arange(0, BLOCK_N)
                mask = row_mask[:, None] & (offs_n[None, :] < n_end)
                offsets = base + offs_n[None, :]
                x = tl.load(x_ptr + offsets, mask=mask, other=0).to(CMP)
                if PARTIAL_IN:
                    i = tl.load(idx_in_ptr + offsets, mask=mask, other=0)
                    take = mask & _takes(x, i, best, tl.where(best_i < 0, NONE, best_i), OP != "min")
                    best = tl.where(take, x, best)
                    best_i = tl.where(take, i, best_i)
                else:
                    i = offs_n[None, :].to(IDX) + tl.zeros([BLOCK_M, BLOCK_N], IDX)
                    best, best_i = _lane_step(x, i, mask, best, best_i, OP != "min")
            best_i = tl.where(best_i < 0, NONE, best_i.to(tl.int64))
            if OP == "min":
                result, result_i = tl.reduce((best, best_i), 1, _min_combine)
            else:
                result, result_i = tl.reduce((best, best_i), 1, _max_combine)
        if OP != "amax":
            tl.store(idx_out_ptr + rows * num_splits + split, result_i, mask=row_mask)
    if OP != "argmax":
        OUT: tl.constexpr = out_ptr.dtype.element_ty
        if OUT == tl.int1:
            tl.store(out_ptr + rows * num_splits + split, result != 0, mask=row_mask)
        else:
            tl.store(out_ptr + rows * num_splits + split, result.to(OUT), mask=row_mask)
