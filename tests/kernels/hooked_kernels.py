"""Autotuned kernels whose configs carry hooks and whose prunes read keyword arguments, written
the way Hopper kernel libraries write them, for tests/cpu/test_hooks.cpp and the GPU tests."""
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _tile_by_config(nargs):
    """The descriptors tile by the config's BLOCK rows of the whole WIDTH."""
    block_rows = nargs["BLOCK"]
    width = nargs["WIDTH"]
    tile = [block_rows, width]  # a shape bound to a name first, as hooks often hold one
    if not isinstance(nargs["src"], TensorDescriptor):
        return
    nargs["src"].block_shape = tile
    if nargs["TRANSPOSED"]:
        nargs["dst"].block_shape = [width, block_rows]
    else:
        nargs["dst"].block_shape = tile


@triton.autotune(configs=[triton.Config({"BLOCK": b}, num_warps=w, pre_hook=_tile_by_config)
                          for b, w in ((16, 2), (32, 4), (64, 4))], key=["rows"])
@triton.jit
def tiled_scale(src, dst, rows, factor, WIDTH: tl.constexpr, TRANSPOSED: tl.constexpr, BLOCK: tl.constexpr):
    start = tl.program_id(0) * BLOCK
    tile = src.load([start, 0]) * factor
    if TRANSPOSED:
        dst.store([0, start], tl.trans(tile).to(dst.dtype))
    else:
        dst.store([start, 0], tile.to(dst.dtype))


def zero_outputs(names):
    return lambda nargs: [nargs[name].zero_() for name in names if nargs[name] is not None]


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=zero_outputs(["total", "count"])),
                          triton.Config({"BLOCK": 128}, pre_hook=zero_outputs(["total", "count"]))],
                 key=["n"])
@triton.jit
def accumulate(x_ptr, total, count, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n, other=0.0)
    tl.atomic_add(total, tl.sum(x))
    if count is not None:
        tl.atomic_add(count, tl.sum((offsets < n).to(tl.int32)))


def _keep_from_copy(nargs):
    nargs["out_ptr"].copy_(nargs["keep_ptr"])


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=_keep_from_copy)], key=["n"])
@triton.jit
def starts_from_copy(x_ptr, keep_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(out_ptr + offsets, mask=mask) + tl.load(x_ptr + offsets, mask=mask), mask=mask)


def _logs(nargs):
    block = nargs["BLOCK"]
    print("tuning", block)


@triton.autotune(configs=[triton.Config({"BLOCK": 64}, pre_hook=_logs), triton.Config({"BLOCK": 128})], key=["n"])
@triton.jit
def hook_that_prints(x_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offsets, 1.0, mask=offsets < n)


def fits_the_context(configs, named_args, **kwargs):
    """As Triton's attention tutorial prunes: by keyword arguments that wrappers pass as N_CTX=..."""
    n_ctx = kwargs["N_CTX"]
    stage = kwargs["STAGE"]
    return [c for c in configs if c.kwargs["BLOCK_M"] <= n_ctx and (stage != 3 or c.kwargs["BLOCK_M"] >= 32)]


def estimated_time(N_CTX, BLOCK_M, num_warps, **kwargs):
    return abs(BLOCK_M - N_CTX // 2) + num_warps


@triton.autotune(configs=[triton.Config({"BLOCK_M": m}, num_warps=w) for m, w in ((16, 2), (32, 4), (64, 4), (128, 8))],
                 key=["N_CTX"], prune_configs_by={"early_config_prune": fits_the_context,
                                                  "perf_model": estimated_time, "top_k": 2})
@triton.jit
def pruned_by_keywords(x_ptr, N_CTX, STAGE: tl.constexpr, BLOCK_M: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets, mask=offsets < N_CTX) * STAGE, mask=offsets < N_CTX)


# A module global a hook's default argument shadows, and one a loop's last iteration rebinds.
WIDTH_GLOBAL = 8
rows = 4


def _tile_after_a_loop(nargs, WIDTH_GLOBAL=32):
    """The default (32), not the module's WIDTH_GLOBAL (8); and after the loop, `rows` is what
    its iterations bound (BLOCK), not the module's `rows` (4)."""
    for name in ["dst"]:
        rows = nargs["BLOCK"]
        nargs[name].block_shape = [rows, WIDTH_GLOBAL]
    nargs["src"].block_shape = [rows, WIDTH_GLOBAL]


@triton.autotune(configs=[triton.Config({"BLOCK": 16}, pre_hook=_tile_after_a_loop)], key=["rows"])
@triton.jit
def tiled_after_a_loop(src, dst, rows, BLOCK: tl.constexpr):
    dst.store([tl.program_id(0) * BLOCK, 0], src.load([tl.program_id(0) * BLOCK, 0]))
