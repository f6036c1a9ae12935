"""Kernels whose specialization the parity tests compare with Triton's own.

Each covers a part of the rules: pointers and integers (pointwise), a reduction, a strided
matmul, do_not_specialize and do_not_specialize_on_alignment, annotations with constexpr
defaults, and None / bool arguments.
"""
import triton
import triton.language as tl


@triton.jit
def pointwise(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) + tl.load(y_ptr + offsets, mask=mask), mask=mask)


@triton.jit
def row_sum(x_ptr, out_ptr, row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    x = tl.load(x_ptr + row * row_stride + cols, mask=cols < n_cols, other=0)
    tl.store(out_ptr + row, tl.sum(x, axis=0))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
           BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k0 in range(0, K, BLOCK_K):
        a = tl.load(a_ptr + offs_m[:, None] * stride_am + (k0 + offs_k)[None, :] * stride_ak,
                    mask=(offs_m[:, None] < M) & ((k0 + offs_k)[None, :] < K), other=0.0)
        b = tl.load(b_ptr + (k0 + offs_k)[:, None] * stride_bk + offs_n[None, :] * stride_bn,
                    mask=((k0 + offs_k)[:, None] < K) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
    c = acc.to(c_ptr.dtype.element_ty)
    tl.store(c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn, c,
             mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))


@triton.jit(do_not_specialize=["n_elements", "step"], do_not_specialize_on_alignment=["x_ptr", "offset"])
def no_specialize(x_ptr, out_ptr, n_elements, offset, step, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n_elements
    x = tl.load(x_ptr + offsets + offset, mask=mask)
    tl.store(out_ptr + offsets, x * step, mask=mask)


@triton.jit
def annotated(x_ptr: "*fp32", out_ptr, n: tl.int64, count: tl.uint32, scale: tl.float32, half_scale: tl.float16,
              flag: tl.int1, BLOCK_SIZE: tl.constexpr = 128, MODE: tl.constexpr = "fast",
              FACTOR: tl.constexpr = 2.5, EXACT: tl.constexpr = True):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    y = x * scale + half_scale.to(tl.float32) * FACTOR + count
    if flag:
        y = y + 1.0
    tl.store(out_ptr + offsets, y.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def optional_bias(x_ptr, bias_ptr, out_ptr, n, alpha, use_alpha, HAS_BIAS: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    if HAS_BIAS:
        x += tl.load(bias_ptr + offsets, mask=mask)
    if use_alpha:
        x = x * alpha
    tl.store(out_ptr + offsets, x, mask=mask)


@triton.autotune(configs=[triton.Config({"BLOCK_SIZE": 256}, num_warps=8, num_stages=2)], key=["n"])
@triton.heuristics({"EVEN": lambda args: args["n"] % args["BLOCK_SIZE"] == 0})
@triton.jit
def tuned(x_ptr, out_ptr, n, BLOCK_SIZE: tl.constexpr, EVEN: tl.constexpr):
    offsets = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    if EVEN:
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets))
    else:
        mask = offsets < n
        tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask), mask=mask)


def not_a_kernel(x):
    return x


@triton.jit
def tuples(ptrs, sizes, scale, OPTS: tl.constexpr, BLOCK: tl.constexpr):
    """Tuple parameters: Triton specialises every element (and a constexpr tuple as a whole)."""
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(ptrs[0] + offsets, mask=offsets < sizes[0])
    tl.store(ptrs[1] + offsets, x * scale, mask=offsets < sizes[1])
