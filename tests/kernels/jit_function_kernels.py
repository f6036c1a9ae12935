"""Kernels that take a @triton.jit function as an argument, as Triton's tutorials and real
libraries pass activations: as a declared constexpr, as a plain parameter (which Triton's
specializer also makes a constexpr), and to an autotuned kernel whose heuristic reads another
argument."""
import triton
import triton.language as tl


@triton.jit
def apply(x_ptr, out_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, ACT(tl.load(x_ptr + offsets, mask=mask)), mask=mask)


@triton.jit
def apply_plain(x_ptr, out_ptr, n, act, BLOCK: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, act(tl.load(x_ptr + offsets, mask=mask)), mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK": 128}, num_warps=4), triton.Config({"BLOCK": 512}, num_warps=4)],
                 key=["n", "ACT"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK"] == 0})
@triton.jit
def apply_tuned(x_ptr, out_ptr, n, ACT: tl.constexpr, BLOCK: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if EVEN:
        tl.store(out_ptr + offsets, ACT(tl.load(x_ptr + offsets)))
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, ACT(tl.load(x_ptr + offsets, mask=mask)), mask=mask)
