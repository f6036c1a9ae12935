"""Pointwise kernels of the operator library: one kernel per arity, the operation chosen by the
OP constexpr. The wrapper (pointwise.cpp) walks the output in memory order: out is dense, so
element i of the walk is out[i]; each input is read through up to four (size, stride) pairs in
that order (stride 0 where it is broadcast), or at i itself when CONTIG. Half and bfloat16
compute in float32, as ATen's opmath does; everything else in the output's type."""
import triton
import triton.language as tl
from triton.language.extra import libdevice

_STRIDES = ["size1", "size2", "size3", "xs0", "xs1", "xs2", "xs3", "ys0", "ys1", "ys2", "ys3",
            "cs0", "cs1", "cs2", "cs3"]


@triton.jit
def _offsets(BLOCK: tl.constexpr, INDEX64: tl.constexpr):
    if INDEX64:
        return tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    else:
        return tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)


@triton.jit
def _strided(i, size1, size2, size3, s0, s1, s2, s3, CONTIG: tl.constexpr):
    """Where element i of the walk is in an input with strides s0..s3 (outermost first)."""
    if CONTIG:
        return i
    else:
        i3 = i % size3
        rest = i // size3
        i2 = rest % size2
        rest = rest // size2
        return (rest // size1) * s0 + (rest % size1) * s1 + i2 * s2 + i3 * s3


@triton.jit
def _store(out_ptr, offsets, r, mask):
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    if OUT == tl.int1:
        tl.store(out_ptr + offsets, r != 0, mask=mask)
    else:
        tl.store(out_ptr + offsets, r.to(OUT), mask=mask)


@triton.jit
def _floor_divide(x, y, IS_FLOAT: tl.constexpr):
    if IS_FLOAT:
        # ATen's div_floor_floating: exact for representable quotients, -0.0 kept. Triton's `/` is
        # div.full.f32 (2 ulp); a quotient just below a whole number is put right by the
        # rounding step below, as in ATen.
        mod = libdevice.fmod(x, y)
        div = (x - mod) / y
        div = tl.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1.0, div)
        floored = libdevice.floor(div)
        floored = tl.where(div - floored > 0.5, floored + 1.0, floored)
        floored = tl.where(div != 0, floored, libdevice.copysign(tl.zeros_like(div), x / y))
        return tl.where(y == 0, x / y, floored)
    else:
        q = x // y  # truncates
        return tl.where(((x % y) != 0) & ((x < 0) != (y < 0)), q - 1, q)


@triton.jit
def _remainder(x, y, IS_FLOAT: tl.constexpr):
    if IS_FLOAT:
        mod = libdevice.fmod(x, y)
    else:
        mod = x % y  # the sign of x
    return tl.where((mod != 0) & ((y < 0) != (mod < 0)), mod + y, mod)


@triton.jit
def _divide_by_reciprocal(x, y, OP: tl.constexpr):
    """ATen's rounding division by a CPU scalar: x times the scalar's reciprocal (it can lose a bit
    against a division, and ATen's results carry that loss)."""
    inverse = libdevice.div_rn(tl.full(x.shape, 1.0, x.dtype), y.to(x.dtype))
    if OP == "div_trunc_scalar":
        return libdevice.trunc(x * inverse)
    mod = libdevice.fmod(x, y)
    div = (x - mod) * inverse
    div = tl.where((mod != 0) & ((y < 0) != (mod < 0)), div - 1.0, div)
    floored = libdevice.floor(div)
    floored = tl.where(div - floored > 0.5, floored + 1.0, floored)
    floored = tl.where(div != 0, floored, libdevice.copysign(tl.zeros_like(div), x * inverse))
    return tl.where(y == 0, x / y, floored)


@triton.jit
def _binary(x, y, alpha, OP: tl.constexpr, IS_FLOAT: tl.constexpr, OUT: tl.constexpr):
    if OP == "add":
        return x + y * alpha
    elif OP == "add1":
        return x + y
    elif OP == "sub":
        return x - y * alpha
    elif OP == "sub1":
        return x - y
    elif OP == "mul":
        return x * y
    elif OP == "div":
        return x / y
    elif OP == "div_trunc":
        if IS_FLOAT:
            q = libdevice.div_rn(x, y)  # div.full.f32 (2 ulp) could put 6/3 just below 2
            if OUT == tl.float16 or OUT == tl.bfloat16:
                q = q.to(OUT).to(x.dtype)  # ATen divides in the tensor's dtype, then truncates
            return libdevice.trunc(q)
        else:
            return x // y
    elif OP == "div_trunc_scalar" or OP == "div_floor_scalar":
        if IS_FLOAT:
            return _divide_by_reciprocal(x, y, OP)
        elif OP == "div_trunc_scalar":
            return x // y
        else:
            return _floor_divide(x, y, IS_FLOAT)
    elif OP == "div_floor":
        return _floor_divide(x, y, IS_FLOAT)
    elif OP == "remainder":
        return _remainder(x, y, IS_FLOAT)
    elif OP == "maximum":
        if IS_FLOAT:
            return tl.where((x != x) | (x > y), x, y)  # NaN propagates
        else:
            return tl.maximum(x, y)
    else:  # "minimum"
        if IS_FLOAT:
            return tl.where((x != x) | (x < y), x, y)
        else:
            return tl.minimum(x, y)


@triton.jit
def _unary(x, OP: tl.constexpr, IS_FLOAT: tl.constexpr):
    if OP == "neg":
        return -x
    elif OP == "abs":
        if IS_FLOAT:
            return tl.abs(x)
        else:
            return tl.where(x < 0, -x, x)
    elif OP == "exp":
        return libdevice.exp(x)
    elif OP == "log":
        return libdevice.log(x)
    elif OP == "sqrt":
        return libdevice.sqrt(x)
    elif OP == "rsqrt":
        return libdevice.rsqrt(x)
    elif OP == "sigmoid":
        return 1.0 / (1.0 + libdevice.exp(-x))
    elif OP == "tanh":
        return libdevice.tanh(x)
    elif OP == "relu":
        if IS_FLOAT:
            return tl.where(x != x, x, tl.where(x > 0, x, tl.zeros_like(x)))
        else:
            return tl.where(x > 0, x, tl.zeros_like(x))
    elif OP == "gelu":
        return 0.5 * x * (1.0 + libdevice.erf(x * 0.7071067811865476))
    elif OP == "gelu_tanh":
        inner = 0.7978845608028654 * (x + 0.044715 * x * x * x)
        return 0.5 * x * (1.0 + libdevice.tanh(inner))
    else:  # "silu"
        return x / (1.0 + libdevice.exp(-x))


@triton.jit(do_not_specialize=_STRIDES[:7])
def unary_kernel(x_ptr, out_ptr, n, size1, size2, size3, xs0, xs1, xs2, xs3,
                 OP: tl.constexpr, CONTIG: tl.constexpr, INDEX64: tl.constexpr, BLOCK: tl.constexpr):
    i = _offsets(BLOCK, INDEX64)
    mask = i < n
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    COMPUTE: tl.constexpr = tl.float32 if OUT == tl.float16 else (
        tl.float32 if OUT == tl.bfloat16 else (tl.int32 if OUT == tl.int1 else OUT))
    x = tl.load(x_ptr + _strided(i, size1, size2, size3, xs0, xs1, xs2, xs3, CONTIG), mask=mask).to(COMPUTE)
    _store(out_ptr, i, _unary(x, OP, COMPUTE.is_floating()), mask)


@triton.jit(do_not_specialize=_STRIDES[:11])
def binary_kernel(x_ptr, y_ptr, out_ptr, n, size1, size2, size3, xs0, xs1, xs2, xs3, ys0, ys1, ys2, ys3, alpha,
                  OP: tl.constexpr, CONTIG: tl.constexpr, INDEX64: tl.constexpr, BLOCK: tl.constexpr):
    i = _offsets(BLOCK, INDEX64)
    mask = i < n
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    COMPUTE: tl.constexpr = tl.float32 if OUT == tl.float16 else (
        tl.float32 if OUT == tl.bfloat16 else (tl.int32 if OUT == tl.int1 else OUT))
    x = tl.load(x_ptr + _strided(i, size1, size2, size3, xs0, xs1, xs2, xs3, CONTIG), mask=mask).to(COMPUTE)
    y = tl.load(y_ptr + _strided(i, size1, size2, size3, ys0, ys1, ys2, ys3, CONTIG), mask=mask).to(COMPUTE)
    _store(out_ptr, i, _binary(x, y, alpha, OP, COMPUTE.is_floating(), OUT), mask)


@triton.jit(do_not_specialize=_STRIDES[:7])
def binary_scalar_kernel(x_ptr, y, out_ptr, n, size1, size2, size3, xs0, xs1, xs2, xs3, alpha,
                         OP: tl.constexpr, CONTIG: tl.constexpr, INDEX64: tl.constexpr, BLOCK: tl.constexpr):
    """out = x OP y for a scalar y (the Scalar overloads)."""
    i = _offsets(BLOCK, INDEX64)
    mask = i < n
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    COMPUTE: tl.constexpr = tl.float32 if OUT == tl.float16 else (
        tl.float32 if OUT == tl.bfloat16 else (tl.int32 if OUT == tl.int1 else OUT))
    x = tl.load(x_ptr + _strided(i, size1, size2, size3, xs0, xs1, xs2, xs3, CONTIG), mask=mask).to(COMPUTE)
    _store(out_ptr, i, _binary(x, y.to(COMPUTE), alpha, OP, COMPUTE.is_floating(), OUT), mask)


@triton.jit(do_not_specialize=_STRIDES)
def where_kernel(c_ptr, x_ptr, y_ptr, out_ptr, n, size1, size2, size3, cs0, cs1, cs2, cs3, xs0, xs1, xs2, xs3,
                 ys0, ys1, ys2, ys3, CONTIG: tl.constexpr, INDEX64: tl.constexpr, BLOCK: tl.constexpr):
    i = _offsets(BLOCK, INDEX64)
    mask = i < n
    OUT: tl.constexpr = out_ptr.dtype.element_ty
    c = tl.load(c_ptr + _strided(i, size1, size2, size3, cs0, cs1, cs2, cs3, CONTIG), mask=mask)
    x = tl.load(x_ptr + _strided(i, size1, size2, size3, xs0, xs1, xs2, xs3, CONTIG), mask=mask).to(OUT)
    y = tl.load(y_ptr + _strided(i, size1, size2, size3, ys0, ys1, ys2, ys3, CONTIG), mask=mask).to(OUT)
    tl.store(out_ptr + i, tl.where(c != 0, x, y), mask=mask)
