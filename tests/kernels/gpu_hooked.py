"""Hopper-style kernels whose configs give host-side descriptors their block shapes through a
pre_hook, written as real libraries write them, for tests/gpu/test_gpu_decorated.cpp: an attention
forward over descriptors and a persistent TMA matmul, both autotuned."""
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


def _attention_tiles(nargs):
    block_m = nargs["BLOCK_M"]
    block_n = nargs["BLOCK_N"]
    head_dim = nargs["HEAD_DIM"]
    if not isinstance(nargs["desc_q"], TensorDescriptor):
        return
    nargs["desc_q"].block_shape = [block_m, head_dim]
    nargs["desc_o"].block_shape = [block_m, head_dim]
    nargs["desc_k"].block_shape = [block_n, head_dim]
    nargs["desc_v"].block_shape = [block_n, head_dim]


def _fits_the_sequence(configs, named_args, **kwargs):
    n_ctx = kwargs["N_CTX"]
    return [c for c in configs if c.kwargs["BLOCK_M"] <= n_ctx and c.kwargs["BLOCK_N"] <= n_ctx]


@triton.autotune(configs=[triton.Config({"BLOCK_M": m, "BLOCK_N": n}, num_warps=w, num_stages=s, pre_hook=_attention_tiles)
                          for m, n, w, s in ((64, 64, 4, 3), (128, 64, 8, 3), (128, 128, 8, 2))],
                 key=["N_CTX", "HEAD_DIM", "CAUSAL"], prune_configs_by={"early_config_prune": _fits_the_sequence})
@triton.jit
def attention_forward(sm_scale, desc_q, desc_k, desc_v, desc_o, N_CTX, HEAD_DIM: tl.constexpr, CAUSAL: tl.constexpr,
                      BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """softmax(q k^T * sm_scale) v for one (batch, head) and BLOCK_M query rows; q, k, v and o are
    (batch * heads * N_CTX, HEAD_DIM) behind descriptors; N_CTX is a multiple of both blocks."""
    start_m = tl.program_id(0)
    row0 = tl.program_id(1) * N_CTX
    offs_m = start_m * BLOCK_M + tl.arange(0, BLOCK_M)
    q = desc_q.load([row0 + start_m * BLOCK_M, 0])
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], tl.float32)
    scale = sm_scale * 1.4426950408889634  # exp(x) = exp2(x * log2(e))
    if CAUSAL:
        hi = (start_m + 1) * BLOCK_M
    else:
        hi = N_CTX
    for start_n in range(0, hi, BLOCK_N):
        k = desc_k.load([row0 + start_n, 0])
        scores = tl.dot(q, k.T) * scale
        if CAUSAL:
            offs_n = start_n + tl.arange(0, BLOCK_N)
            scores = tl.where(offs_m[:, None] >= offs_n[None, :], scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, 1))
        p = tl.math.exp2(scores - m_new[:, None])
        alpha = tl.math.exp2(m_i - m_new)
        l_i = l_i * alpha + tl.sum(p, 1)
        v = desc_v.load([row0 + start_n, 0])
        acc = acc * alpha[:, None] + tl.dot(p.to(v.dtype), v)
        m_i = m_new
    desc_o.store([row0 + start_m * BLOCK_M, 0], (acc / l_i[:, None]).to(desc_o.dtype))


def _matmul_tiles(nargs):
    nargs["a_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_K"]]
    nargs["b_desc"].block_shape = [nargs["BLOCK_N"], nargs["BLOCK_K"]]
    nargs["c_desc"].block_shape = [nargs["BLOCK_M"], nargs["BLOCK_N"]]


@triton.autotune(configs=[triton.Config({"BLOCK_M": m, "BLOCK_N": n, "BLOCK_K": k, "GROUP_M": 8}, num_warps=w,
                                        num_stages=s, pre_hook=_matmul_tiles)
                          for m, n, k, w, s in ((128, 128, 64, 8, 3), (128, 256, 64, 8, 3), (64, 128, 64, 4, 4))],
                 key=["M", "N", "K"])
@triton.jit
def matmul_tma_tuned(a_desc, b_desc, c_desc, M, N, K, NUM_SMS: tl.constexpr, BLOCK_M: tl.constexpr,
                     BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    """C = A @ B^T, A (M, K), B (N, K), C (M, N): a persistent kernel, one program per SM walking
    the output tiles in grouped order."""
    num_pid_m = tl.cdiv(M, BLOCK_M)
    num_pid_n = tl.cdiv(N, BLOCK_N)
    num_tiles = num_pid_m * num_pid_n
    in_group = GROUP_M * num_pid_n
    for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS):
        first_m = (tile // in_group) * GROUP_M
        group_rows = min(num_pid_m - first_m, GROUP_M)
        pid_m = first_m + (tile % group_rows)
        pid_n = (tile % in_group) // group_rows
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for ki in range(tl.cdiv(K, BLOCK_K)):
            a = a_desc.load([pid_m * BLOCK_M, ki * BLOCK_K])
            b = b_desc.load([pid_n * BLOCK_N, ki * BLOCK_K])
            acc = tl.dot(a, b.T, acc)
        c_desc.store([pid_m * BLOCK_M, pid_n * BLOCK_N], acc.to(c_desc.dtype))
