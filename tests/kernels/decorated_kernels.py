"""Kernels with @triton.autotune and @triton.heuristics, written as kernel libraries write them,
for the tests of decorated calls (tests/cpu/test_decorated.cpp, tests/gpu)."""
import triton
import triton.language as tl


@triton.autotune(
    configs=[
        triton.Config({"BLOCK": 64}, num_warps=2),
        triton.Config({"BLOCK": 128}, num_warps=4),
        triton.Config({"BLOCK": 256}, num_warps=8),
        triton.Config({"BLOCK": 512}, num_warps=4, num_stages=2),
    ],
    key=["n"],
)
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def scale_tuned(x_ptr, out_ptr, n, factor, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets) * factor)
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor, mask=mask)


@triton.heuristics({"BLOCK": lambda args: triton.next_power_of_2(args["n_cols"]),
                    "num_warps": lambda args: 4 if args["n_cols"] <= 2048 else 8})
@triton.jit
def row_softmax(x_ptr, out_ptr, n_cols, row_stride, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    e = tl.exp(x)
    y = e / tl.sum(e, axis=0)
    tl.store(out_ptr + row * row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)],
    key=["n"],
    reset_to_zero=["total_ptr"],
)
@triton.jit
def accumulate(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    """total[0] += sum(x): tuning runs it many times, and reset_to_zero keeps the sum right."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))


@triton.autotune(configs=[triton.Config({}, num_warps=2), triton.Config({}, num_warps=4)], key=["n"],
                 reset_to_zero=["total_ptr"])
@triton.jit
def accumulate_over_warps(x_ptr, total_ptr, n, BLOCK: tl.constexpr):
    """accumulate, tuned over num_warps alone: its configs set no parameter, and tuning still
    needs total_ptr's size."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))


@triton.autotune(
    configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 256}, num_warps=8)],
    key=["n"],
    reset_to_zero=["total_ptr", "count_ptr"],
)
@triton.heuristics({"COUNT": lambda args: args["count_ptr"] is not None})
@triton.jit
def accumulate_counting(x_ptr, total_ptr, count_ptr, n, BLOCK: tl.constexpr, COUNT: tl.constexpr):
    """accumulate, and the number of programs into count_ptr when one is given (None: not counted)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(total_ptr, tl.sum(x, axis=0))
    if COUNT:
        tl.atomic_add(count_ptr, 1)


@triton.heuristics({"BLOCK": lambda args: sum([args["n"] % 7, 1]) * 64})
@triton.jit
def python_heuristic(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


def keep_small_blocks(configs, named_args, **kwargs):
    return [c for c in configs if c.kwargs["BLOCK"] * 4 <= max(named_args["n"], 256)]


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (128, 4), (1024, 8))],
                 key=["n"], prune_configs_by={"early_config_prune": keep_small_blocks})
@triton.jit
def pruned(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n), mask=offsets < n)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}), triton.Config({"BLOCK": 256})], key=["n"], warmup=1, rep=5)
@triton.jit
def scale_short_bench(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < n) * 2, mask=offsets < n)


@triton.heuristics({"BLOCK": lambda args: min(triton.next_power_of_2(args["n"]), 1024)})
@triton.jit
def block_between(x_ptr, BLOCK: tl.constexpr, out_ptr, n):
    """A parameter a decorator sets between the caller's (the memo places it, not appends it)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def activated(x_ptr, out_ptr, n, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    """A string constexpr the caller passes, as Triton's matmul tutorial passes ACTIVATION."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    if ACTIVATION == "relu":
        x = tl.maximum(x, 0.0)
    tl.store(out_ptr + offsets, x, mask=offsets < n)


@triton.heuristics({"TAGGED": lambda args: args["MODE"] + args["SUFFIX"],
                    "LATE": lambda args: args["MODE"] > args["SUFFIX"]})
@triton.jit
def string_heuristics(x_ptr, out_ptr, n, MODE: tl.constexpr, SUFFIX: tl.constexpr, TAGGED: tl.constexpr,
                      LATE: tl.constexpr):
    """Heuristics over string arguments whose types the translator cannot know at load: it
    translates them, and a call whose values are strings (concatenation, ordering) asks Python."""
    offsets = tl.program_id(0) * 128 + tl.arange(0, 128)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    if LATE:
        x = x * 2
    tl.store(out_ptr + offsets, x, mask=offsets < n)


def blocks_for_the_pair(configs, named_args, **kwargs):
    """A prune that reads a tuple argument: at most 64 elements a block per tensor of the pair."""
    return [c for c in configs if c.kwargs["BLOCK"] <= 64 * len(named_args["pair"])]


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w) for b, w in ((64, 2), (128, 4), (512, 8))],
                 key=["n"], prune_configs_by={"early_config_prune": blocks_for_the_pair})
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def pair_sum(pair, out_ptr, n, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    """Tensors passed as a tuple to a tuned kernel, as fla's AttnRes passes its residual sources."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(pair[0] + offsets, mask=mask) + tl.load(pair[1] + offsets, mask=mask),
             mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}), triton.Config({"BLOCK": 128})], key=["pair"])
@triton.jit
def pair_keyed(pair, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + offsets, tl.load(pair[0] + offsets, mask=offsets < n), mask=offsets < n)


# A row norm in the shape real libraries write their fused norms: many optional tensors passed as
# None, a stride per tensor, and the options as constexpr flags; tuned over num_warps alone. 38
# parameters, more than a short call's memo words.
@triton.autotune(
    configs=[triton.Config({}, num_warps=w) for w in (1, 2, 4, 8)],
    key=["N", "HAS_RESIDUAL", "STORE_RESIDUAL_OUT", "IS_RMS_NORM", "HAS_BIAS", "HAS_X1", "HAS_W1", "HAS_B1"],
)
@triton.jit
def wide_norm_tuned(X, Y, W, B, RESIDUAL, X1, W1, B1, Y1, RESIDUAL_OUT, ROWSCALE, SEEDS, DROPOUT_MASK, DROPOUT_MASK1,
                    Mean, Rstd, stride_x_row, stride_y_row, stride_res_row, stride_res_out_row, stride_x1_row,
                    stride_y1_row, M, N, eps, dropout_p, zero_centered_weight, IS_RMS_NORM: tl.constexpr,
                    BLOCK_N: tl.constexpr, HAS_RESIDUAL: tl.constexpr, STORE_RESIDUAL_OUT: tl.constexpr,
                    HAS_BIAS: tl.constexpr, HAS_DROPOUT: tl.constexpr, STORE_DROPOUT_MASK: tl.constexpr,
                    HAS_ROWSCALE: tl.constexpr, HAS_X1: tl.constexpr, HAS_W1: tl.constexpr, HAS_B1: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < N
    x = tl.load(X + row * stride_x_row + cols, mask=mask, other=0.0).to(tl.float32)
    if HAS_RESIDUAL:
        x += tl.load(RESIDUAL + row * stride_res_row + cols, mask=mask, other=0.0).to(tl.float32)
    if STORE_RESIDUAL_OUT:
        tl.store(RESIDUAL_OUT + row * stride_res_out_row + cols, x, mask=mask)
    if not IS_RMS_NORM:
        mean = tl.sum(x, axis=0) / N
        tl.store(Mean + row, mean)
        xc = tl.where(mask, x - mean, 0.0)
    else:
        xc = tl.where(mask, x, 0.0)
    rstd = 1 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + eps)
    tl.store(Rstd + row, rstd)
    w = tl.load(W + cols, mask=mask).to(tl.float32)
    if zero_centered_weight:
        w += 1.0
    y = xc * rstd * w
    if HAS_BIAS:
        y += tl.load(B + cols, mask=mask).to(tl.float32)
    tl.store(Y + row * stride_y_row + cols, y, mask=mask)
