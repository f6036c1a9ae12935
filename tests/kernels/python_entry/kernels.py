"""Kernels the Python entry (triton_jit.jit) is tested and timed with, each launched both by
Triton and by the runtime: plain, with defaults, strings, None, tuples, heuristics, autotuning,
a 16-argument one and descriptors."""
import triton
import triton.language as tl


@triton.jit
def add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def affine(x_ptr, out_ptr, n, alpha=2.0, bias_ptr=None, ACT: tl.constexpr = "none", BLOCK: tl.constexpr = 128):
    """out = act(alpha * x + bias): a float, an optional pointer and a string with defaults."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    y = tl.load(x_ptr + offsets, mask=mask) * alpha
    if bias_ptr is not None:
        y += tl.load(bias_ptr + offsets, mask=mask)
    if ACT == "relu":
        y = tl.maximum(y, 0.0)
    tl.store(out_ptr + offsets, y, mask=mask)


@triton.jit
def strided_pair(x_ptr, out_ptr, dims, FLIP: tl.constexpr, BLOCK: tl.constexpr):
    """A tuple argument: dims = (rows, cols); out is x transposed when FLIP."""
    rows = dims[0]
    cols = dims[1]
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < rows * cols
    r = offsets // cols
    c = offsets % cols
    value = tl.load(x_ptr + offsets, mask=mask)
    if FLIP:
        tl.store(out_ptr + c * rows + r, value, mask=mask)
    else:
        tl.store(out_ptr + offsets, value, mask=mask)


@triton.heuristics({"BLOCK": lambda args: 256 if args["n"] >= 4096 else 64})
@triton.jit
def scaled_copy(x_ptr, out_ptr, n, scale, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * scale, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 512}, num_warps=8)],
                 key=["n"])
@triton.jit
def tuned_add(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def sum16(a0, a1, a2, a3, a4, a5, a6, a7, out_ptr, n, s0, s1, s2, s3, s4, BLOCK: tl.constexpr):
    """Sixteen arguments: eight tensors, an output, the size, five scalars and the block."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    acc = tl.load(a0 + offsets, mask=mask) + tl.load(a1 + offsets, mask=mask) + tl.load(a2 + offsets, mask=mask)
    acc += tl.load(a3 + offsets, mask=mask) + tl.load(a4 + offsets, mask=mask) + tl.load(a5 + offsets, mask=mask)
    acc += tl.load(a6 + offsets, mask=mask) + tl.load(a7 + offsets, mask=mask)
    acc = acc * s0 + s1 + s2 * s3 - s4
    tl.store(out_ptr + offsets, acc, mask=mask)


@triton.jit
def copy_tiles(in_desc, out_desc, BM: tl.constexpr, BN: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    out_desc.store([pid_m * BM, pid_n * BN], in_desc.load([pid_m * BM, pid_n * BN]))
