"""A kernel whose prune and performance model record what they are called with, for the golden
test of prune_configs_by's arguments against Triton's own Autotuner (tests/python)."""
import triton
import triton.language as tl

CALLS = []


def _plain(value):
    return str(value.dtype) if hasattr(value, "dtype") else value


def recording_prune(configs, named_args, **kwargs):
    CALLS.append(("prune", {k: _plain(v) for k, v in named_args.items()},
                  {k: _plain(v) for k, v in kwargs.items() if k != "grid"}))
    n_ctx = named_args.get("N_CTX", kwargs.get("N_CTX"))
    return [c for c in configs if c.kwargs["BLOCK_M"] <= n_ctx]


def recording_model(**kwargs):
    CALLS.append(("model", {}, {k: _plain(v) for k, v in kwargs.items() if k != "grid"}))
    return abs(kwargs["BLOCK_M"] - kwargs["N_CTX"] // 4)


@triton.heuristics({"EVEN": lambda args: args["N_CTX"] % 64 == 0})
@triton.autotune(configs=[triton.Config({"BLOCK_M": m}, num_warps=w) for m, w in ((16, 2), (32, 4), (64, 4), (256, 8))],
                 key=["N_CTX"], prune_configs_by={"early_config_prune": recording_prune,
                                                  "perf_model": recording_model, "top_k": 2})
@triton.jit
def probed(x_ptr, scale, N_CTX, STAGE: tl.constexpr, EVEN: tl.constexpr, BLOCK_M: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    tl.store(x_ptr + offsets, tl.load(x_ptr + offsets) * scale * STAGE)
