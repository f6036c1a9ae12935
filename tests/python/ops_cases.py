"""The operator library's test cases, one table for the Meta tests (CPU, meta tensors) and the GPU
tests: each op with the ATen op (or a composition of ATen ops) it must match, and inputs of the
kinds that break kernels: empty, one element, odd sizes, non-contiguous and broadcast inputs."""
import math

import torch

FLOATS = (torch.float32, torch.float16, torch.bfloat16)
INTS = (torch.int32,)
ALL = FLOATS + INTS + (torch.bool,)


def ours(name):
    packet, _, overload = name.partition(".")
    op = getattr(torch.ops.triton_jit, packet)
    return getattr(op, overload or "default")


def aten(name):
    packet, _, overload = name.partition(".")
    return getattr(getattr(torch.ops.aten, packet), overload or "default")


def make(shape, dtype, device, low=-3, high=3, positive=False, nonzero=False):
    """Values that exercise an op without overflowing it: floats in [low, high), integers in
    [low, high], booleans; `positive` for logarithms and roots, `nonzero` for divisors."""
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    if dtype == torch.bool:
        return torch.rand(shape, device=device) > 0.5
    if dtype.is_floating_point:
        t = torch.rand(shape, device=device, dtype=torch.float32) * (high - low) + low
        if positive:
            t = t.abs() + 0.125
        if nonzero:
            t = torch.where(t.abs() < 0.25, torch.full_like(t, 0.5), t)
        return t.to(dtype)
    # Integers take the range's whole numbers (at least -1..1 for a fractional range).
    t = torch.randint(min(math.floor(low), -1), max(math.ceil(high), 1) + 1, shape, device=device, dtype=torch.int64)
    if positive:
        t = t.abs() + 1
    if nonzero:
        t = torch.where(t == 0, torch.ones_like(t), t)
    return t.to(dtype)


def transposed(shape, dtype, device, **kw):
    """A non-contiguous view of `shape` (a transpose of the last two dims)."""
    return make(shape[:-2] + (shape[-1], shape[-2]), dtype, device, **kw).transpose(-1, -2)


def sliced(shape, dtype, device, **kw):
    """A non-contiguous view of `shape` (every other element of the last dim)."""
    return make(shape[:-1] + (shape[-1] * 2,), dtype, device, **kw)[..., ::2]


class Case:
    def __init__(self, name, build, dtypes=FLOATS, reference=None, kinds=("odd",), check=None, tolerance=None,
                 reorders_sums=False):
        self.name = name           # our op: "add.Tensor" is torch.ops.triton_jit.add.Tensor
        self.build = build         # (kind, dtype, device) -> (args, kwargs), or None when the kind does not apply
        self.dtypes = dtypes
        self.reference = reference or aten(name)
        self.kinds = kinds
        self.check = check         # (ours, reference, args) -> None; default: assert_close
        self.tolerance = tolerance  # {"rtol", "atol"} for results that reorder float sums (matmul)
        # A long float sum in another order than ATen's: ATen's result carries its own rounding, so
        # ours may instead be as close to the exact (float64) result as the dtype's tolerance asks.
        self.reorders_sums = reorders_sums
        # ATen's Meta kernel has TensorIterator's strides (not so where it composes Python references)
        self.meta_strides = not (name.startswith("div.") and name.endswith("_mode"))

    @property
    def op(self):
        return ours(self.name)

    def __repr__(self):
        return self.name


# ---- pointwise ------------------------------------------------------------------------------------------

BINARY_KINDS = ("odd", "empty", "one", "noncontig", "broadcast", "cuda_scalar", "cpu_scalar", "rank6")


def binary_inputs(kind, dtype, device, nonzero=False, other_dtype=None):
    other_dtype = other_dtype or dtype
    kw = {"nonzero": nonzero}
    if kind == "odd":
        return make((37, 129), dtype, device), make((37, 129), other_dtype, device, **kw)
    if kind == "empty":
        return make((0, 7), dtype, device), make((0, 7), other_dtype, device, **kw)
    if kind == "one":
        return make((1,), dtype, device), make((1,), other_dtype, device, **kw)
    if kind == "noncontig":
        return transposed((37, 129), dtype, device), sliced((37, 129), other_dtype, device, **kw)
    if kind == "broadcast":
        return make((7, 1, 33), dtype, device), make((5, 1), other_dtype, device, **kw)
    if kind == "cuda_scalar":
        return make((37, 129), dtype, device), make((), other_dtype, device, **kw)
    if kind == "cpu_scalar":
        return make((37, 129), dtype, device), make((), other_dtype, "cpu" if device != "meta" else "cpu", **kw)
    if kind == "rank6":
        return make((2, 3, 1, 4, 5, 3), dtype, device), make((3, 4, 1, 3), other_dtype, device, **kw)
    raise ValueError(kind)


def binary(name, nonzero=False, dtypes=ALL, kwargs=None):
    def build(kind, dtype, device):
        x, y = binary_inputs(kind, dtype, device, nonzero=nonzero)
        return (x, y), dict(kwargs or {})
    return Case(name, build, dtypes=dtypes, kinds=BINARY_KINDS)


def binary_scalar(name, scalar, dtypes=ALL, kwargs=None):
    def build(kind, dtype, device):
        x = {"odd": (37, 129), "empty": (0, 7), "one": (1,)}.get(kind)
        if kind == "noncontig":
            return (transposed((37, 129), dtype, device), scalar), dict(kwargs or {})
        return (make(x, dtype, device), scalar), dict(kwargs or {})
    return Case(name, build, dtypes=dtypes, kinds=("odd", "empty", "one", "noncontig"))


def mixed_dtypes(kind, dtype, device):
    """float16 + float32, int32 + float16: ATen's type promotion."""
    other = torch.float32 if dtype != torch.float32 else torch.float16
    x, y = binary_inputs(kind, dtype, device, other_dtype=other)
    return (x, y), {}


def where_inputs(kind, dtype, device):
    if kind == "odd":
        c, x, y = make((37, 1), torch.bool, device), make((37, 129), dtype, device), make((129,), dtype, device)
    elif kind == "empty":
        c, x, y = make((0, 5), torch.bool, device), make((0, 5), dtype, device), make((5,), dtype, device)
    elif kind == "noncontig":
        c, x, y = make((37, 129), torch.bool, device), transposed((37, 129), dtype, device), sliced((37, 129), dtype, device)
    elif kind == "int_condition":
        c, x, y = make((37, 129), torch.int32, device), make((37, 129), dtype, device), make((37, 129), dtype, device)
    else:
        raise ValueError(kind)
    return (c, x, y), {}


UNARY_KINDS = ("odd", "empty", "one", "noncontig")


def unary(name, dtypes=ALL, positive=False, kwargs=None):
    def build(kind, dtype, device):
        shape = {"odd": (37, 129), "empty": (0, 7), "one": (1,), "noncontig": (37, 129)}[kind]
        x = transposed(shape, dtype, device, positive=positive) if kind == "noncontig" else make(
            shape, dtype, device, positive=positive)
        return (x,), dict(kwargs or {})
    return Case(name, build, dtypes=dtypes, kinds=UNARY_KINDS)


# ---- fused -----------------------------------------------------------------------------------------------

def silu_and_mul_reference(x):
    d = x.shape[-1] // 2
    return (torch.nn.functional.silu(x[..., :d].float()) * x[..., d:].float()).to(x.dtype)


def gelu_and_mul_reference(x, approximate="none"):
    d = x.shape[-1] // 2
    return (torch.nn.functional.gelu(x[..., :d].float(), approximate=approximate) * x[..., d:].float()).to(x.dtype)


def fused_add_rms_norm_reference(x, residual, weight, eps=1e-6):
    r = x + residual
    return torch.nn.functional.rms_norm(r.float(), (r.shape[-1],), weight.float(), eps).to(x.dtype), r


def rotary_reference(x, cos, sin, positions=None, interleaved=False):
    tokens_shape = x.shape[:-2]
    seq = x.shape[-3]
    if positions is None:
        positions = torch.arange(seq, device=x.device).expand(tokens_shape)
    c = cos[positions.reshape(tokens_shape)].unsqueeze(-2).float()
    s = sin[positions.reshape(tokens_shape)].unsqueeze(-2).float()
    r = cos.shape[1] * 2
    xf = x.float()
    out = xf.clone()
    if interleaved:
        x1, x2 = xf[..., 0:r:2], xf[..., 1:r:2]
        out[..., 0:r:2] = x1 * c - x2 * s
        out[..., 1:r:2] = x2 * c + x1 * s
    else:
        x1, x2 = xf[..., : r // 2], xf[..., r // 2:r]
        out[..., : r // 2] = x1 * c - x2 * s
        out[..., r // 2:r] = x2 * c + x1 * s
    return out.to(x.dtype)


def gated_inputs(kind, dtype, device):
    shape = {"odd": (37, 258), "empty": (0, 8), "one": (1, 2), "rank3": (3, 5, 130)}[kind]
    return (make(shape, dtype, device),), {}


def fused_norm_inputs(kind, dtype, device):
    shape = {"odd": (37, 129), "one": (1, 1), "long": (3, 10000)}[kind]
    return (make(shape, dtype, device), make(shape, dtype, device), make(shape[-1:], dtype, device), 1e-6), {}


def rotary_inputs(kind, dtype, device):
    cos = make((64, 16), torch.float32, device, low=-1, high=1)
    sin = make((64, 16), torch.float32, device, low=-1, high=1)
    if kind == "neox":
        return (make((2, 9, 4, 32), dtype, device), cos, sin), {}
    if kind == "interleaved":
        return (make((2, 9, 4, 32), dtype, device), cos, sin), {"interleaved": True}
    if kind == "positions":
        pos = torch.randint(0, 64, (11,), device=device) if device != "meta" else torch.empty(11, dtype=torch.int64,
                                                                                               device="meta")
        return (make((11, 3, 40), dtype, device), cos, sin, pos), {}
    raise ValueError(kind)


# ---- reductions -----------------------------------------------------------------------------------------

REDUCE_KINDS = ("dim1", "dims02", "last_keepdim", "all", "noncontig", "empty", "one", "long")


def reduce_inputs(kind, dtype, device, dim_list=True):
    if kind == "dim1":
        return make((5, 37, 129), dtype, device), [1], False
    if kind == "dims02":
        return make((5, 37, 129), dtype, device), [0, 2], False
    if kind == "last_keepdim":
        return make((5, 37, 129), dtype, device), [-1], True
    if kind == "all":
        return make((5, 37, 129), dtype, device), None, False
    if kind == "noncontig":
        return transposed((37, 129), dtype, device), [0], False
    if kind == "empty":
        return make((0, 7, 3), dtype, device), [1], False
    if kind == "one":
        return make((1,), dtype, device), [0], True
    if kind == "long":  # a long reduction split across programs
        return make((3, 100003), dtype, device), [1], False
    raise ValueError(kind)


def sum_like(name):
    def build(kind, dtype, device):
        x, dims, keepdim = reduce_inputs(kind, dtype, device)
        return (x, dims, keepdim), {}
    return Case(name, build, dtypes=ALL if name.startswith("sum") else FLOATS + INTS, kinds=REDUCE_KINDS,
                reorders_sums=True)


def amax_inputs(kind, dtype, device):
    x, dims, keepdim = reduce_inputs(kind, dtype, device)
    return (x, dims or [], keepdim), {}


def with_index_inputs(kind, dtype, device):
    x, dims, keepdim = reduce_inputs(kind, dtype, device)
    dim = -1 if dims is None else dims[0]
    return (x, dim, keepdim), {}


def argmax_inputs(kind, dtype, device):
    x, dims, keepdim = reduce_inputs(kind, dtype, device)
    return (x, None if dims is None else dims[0], keepdim), {}


def check_values_and_indices(result, reference, args):
    """max.dim / min.dim: values equal; indices may differ on ties, but must point at the values."""
    (v, i), (rv, ri) = result, reference
    torch.testing.assert_close(v, rv, equal_nan=True)
    assert i.dtype == ri.dtype and i.shape == ri.shape
    x, dim, keepdim = args
    if x.dim() == 0:
        return
    d = dim % x.dim()
    picked = torch.gather(x, d, i if keepdim else i.unsqueeze(d))
    torch.testing.assert_close(picked, v if keepdim else v.unsqueeze(d), equal_nan=True)


def check_argmax(result, reference, args):
    x, dim, keepdim = args
    assert result.dtype == reference.dtype and result.shape == reference.shape
    if dim is None:
        flat = x.reshape(-1)
        torch.testing.assert_close(flat[result.reshape(-1)], flat[reference.reshape(-1)], equal_nan=True)
        return
    i = result if keepdim else result.unsqueeze(dim)
    j = reference if keepdim else reference.unsqueeze(dim)
    torch.testing.assert_close(torch.gather(x, dim, i), torch.gather(x, dim, j), equal_nan=True)


SOFTMAX_KINDS = ("last", "first", "middle", "long_row", "few_long_rows", "empty", "one", "to_float")


def softmax_inputs(kind, dtype, device):
    if kind == "last":
        return (make((5, 37, 129), dtype, device), -1), {}
    if kind == "first":
        return (make((5, 37, 129), dtype, device), 0), {}
    if kind == "middle":
        return (make((5, 37, 129), dtype, device), 1), {}
    if kind == "long_row":
        return (make((4, 10000), dtype, device), 1), {}
    if kind == "few_long_rows":  # each row cut into chunks across programs
        return (make((2, 50000), dtype, device), -1), {}
    if kind == "empty":
        return (make((0, 7), dtype, device), 1), {}
    if kind == "one":
        return (make((1,), dtype, device), 0), {}
    if kind == "to_float":
        return (make((37, 129), dtype, device), -1), {"dtype": torch.float32}
    raise ValueError(kind)


# ---- norms --------------------------------------------------------------------------------------------------

def layer_norm_inputs(kind, dtype, device):
    if kind == "affine":
        return (make((37, 129), dtype, device), [129], make((129,), dtype, device), make((129,), dtype, device), 1e-5), {}
    if kind == "plain":
        return (make((5, 7, 33), dtype, device), [7, 33]), {}
    if kind == "long":
        return (make((3, 10000), dtype, device), [10000], make((10000,), dtype, device), None, 1e-5), {}
    if kind == "noncontig":
        return (transposed((37, 129), dtype, device), [129], None, make((129,), dtype, device)), {}
    if kind == "bad_shape":
        return (make((2, 3), dtype, device), [4]), {}
    raise ValueError(kind)


def rms_norm_inputs(kind, dtype, device):
    if kind == "weight":
        return (make((37, 129), dtype, device), [129], make((129,), dtype, device), 1e-6), {}
    if kind == "default_eps":
        return (make((5, 7, 33), dtype, device), [33]), {}
    if kind == "long":
        return (make((3, 10000), dtype, device), [10000], make((10000,), dtype, device)), {}
    raise ValueError(kind)


# ---- matmul -----------------------------------------------------------------------------------------------

def mm_inputs(kind, dtype, device):
    scale = 0.25
    if kind == "odd":
        return (make((37, 129), dtype, device, low=-1, high=1), make((129, 65), dtype, device, low=-1, high=1)), {}
    if kind == "transposed":
        return (transposed((64, 96), dtype, device, low=-1, high=1), transposed((96, 48), dtype, device, low=-1,
                                                                                high=1)), {}
    if kind == "skinny":
        return (make((3, 512), dtype, device, low=-scale, high=scale), make((512, 256), dtype, device, low=-1, high=1)), {}
    if kind == "linear_decode":  # nn.Linear's weight layout (B = W^T), a decode step's rows
        return (make((7, 512), dtype, device, low=-scale, high=scale), transposed((512, 768), dtype, device, low=-1,
                                                                                  high=1)), {}
    if kind in ("split_k", "split_k_even"):
        # More than 16 rows of a deep 16-bit product: K split across programs (not a block multiple
        # in "split_k"). Other types take no split; a shallower K keeps float32's sums within its
        # tolerance of ATen's, summed in another order.
        rows, k, n = (40, 4100, 300) if kind == "split_k" else (64, 4096, 512)
        if dtype not in (torch.float16, torch.bfloat16):
            k = 260
        return (make((rows, k), dtype, device, low=-scale, high=scale), transposed((k, n), dtype, device, low=-1,
                                                                                   high=1)), {}
    if kind == "linear_prefill":  # the same layout, rows enough for the one-wave TMA kernel
        return (make((200, 512), dtype, device, low=-scale, high=scale), transposed((512, 384), dtype, device, low=-1,
                                                                                    high=1)), {}
    if kind == "linear_prefill_ragged":  # K not a multiple of a K block, N not of any tile's width
        return (make((130, 200), dtype, device, low=-scale, high=scale), transposed((200, 328), dtype, device, low=-1,
                                                                                    high=1)), {}
    if kind == "linear_prefill_long":  # past the one-wave kernel's rows: the persistent TMA kernel
        return (make((600, 256), dtype, device, low=-scale, high=scale), transposed((256, 320), dtype, device, low=-1,
                                                                                    high=1)), {}
    if kind == "rowmajor_prefill":
        return (make((130, 256), dtype, device, low=-scale, high=scale), make((256, 320), dtype, device, low=-1,
                                                                              high=1)), {}
    if kind == "empty_k":
        return (make((5, 0), dtype, device), make((0, 6), dtype, device)), {}
    if kind == "one":
        return (make((1, 1), dtype, device), make((1, 1), dtype, device)), {}
    raise ValueError(kind)


def silu_and_mul_mm_inputs(kind, dtype, device):
    """An MLP's gate/up output [M, 2K] and its down projection's weight in nn.Linear's layout: a
    decode step's rows, more than 16 rows of a deep K (split across programs), and prefill rows
    (two launches)."""
    rows, k, n = {"decode": (7, 512, 768), "split_k": (40, 2112, 300), "prefill": (80, 256, 192),
                  "empty": (3, 64, 0)}[kind]
    return (make((rows, 2 * k), dtype, device, low=-1, high=1), transposed((k, n), dtype, device, low=-1,
                                                                          high=1)), {}


def silu_and_mul_mm_reference(gate_up, mat2):
    return torch.mm(silu_and_mul_reference(gate_up), mat2)


def check_silu_and_mul_mm(result, reference, args):
    """The same bits as the two ops it replaces (each held to ATen by its own case), and near the
    reference as a whole."""
    assert torch.equal(result, ours("mm")(ours("silu_and_mul")(args[0]), args[1]))
    if reference.numel():
        error = ((result.double() - reference.double()).norm() / reference.double().norm()).item()
        assert error < 1e-2, f"relative error {error:.2e}"


def addmm_inputs(kind, dtype, device):
    (a, b), _ = mm_inputs("odd", dtype, device)
    if kind == "row_bias":
        return (make((65,), dtype, device), a, b), {"beta": 0.5, "alpha": 2}
    if kind == "full_bias":
        return (make((37, 65), dtype, device), a, b), {}
    if kind in ("linear_decode", "linear_prefill", "linear_prefill_ragged"):  # nn.Linear with a bias
        (a, b), _ = mm_inputs(kind, dtype, device)
        return (make((b.shape[1],), dtype, device), a, b), {}
    if kind == "beta0":
        bias = make((37, 65), dtype, device)
        if device != "meta":
            bias[0, 0] = float("nan") if dtype.is_floating_point else 0
        return (bias, a, b), {"beta": 0}
    raise ValueError(kind)


def bmm_inputs(kind, dtype, device):
    if kind == "odd":
        return (make((3, 37, 129), dtype, device, low=-1, high=1), make((3, 129, 65), dtype, device, low=-1, high=1)), {}
    if kind == "transposed":
        return (transposed((4, 33, 40), dtype, device, low=-1, high=1), make((4, 40, 17), dtype, device, low=-1,
                                                                             high=1)), {}
    if kind == "empty":
        return (make((0, 3, 4), dtype, device), make((0, 4, 5), dtype, device)), {}
    if kind == "attention_scores":  # q @ k^T over enough tokens for the persistent kernel, ragged tiles
        q = make((3, 2056, 64), dtype, device, low=-1, high=1)
        k = make((3, 1000, 64), dtype, device, low=-1, high=1)
        return (q, k.transpose(1, 2)), {}
    raise ValueError(kind)


# ---- indexing -----------------------------------------------------------------------------------------------

def index_tensor(shape, high, device, dtype=torch.int64):
    if device == "meta":
        return torch.empty(shape, dtype=dtype, device="meta")
    return torch.randint(0, high, shape, device=device, dtype=dtype)


def embedding_inputs(kind, dtype, device):
    weight = make((100, 64), dtype, device)
    if kind == "int64":
        return (weight, index_tensor((5, 7), 100, device)), {}
    if kind == "int32":
        return (weight, index_tensor((13,), 100, device, torch.int32)), {}
    if kind == "empty":
        return (weight, index_tensor((0,), 100, device)), {}
    if kind == "float_indices":
        return (weight, make((3,), torch.float32, device)), {}
    raise ValueError(kind)


def index_select_inputs(kind, dtype, device):
    x = make((37, 129), dtype, device)
    if kind == "dim0":
        return (x, 0, index_tensor((20,), 37, device)), {}
    if kind == "dim1":
        return (x, 1, index_tensor((50,), 129, device, torch.int32)), {}
    if kind == "noncontig":
        return (transposed((37, 129), dtype, device), 1, index_tensor((9,), 129, device)), {}
    if kind == "empty":
        return (x, 0, index_tensor((0,), 37, device)), {}
    raise ValueError(kind)


def gather_inputs(kind, dtype, device):
    if kind == "dim1":
        return (make((37, 129), dtype, device), 1, index_tensor((37, 20), 129, device)), {}
    if kind == "dim0":
        return (make((37, 129), dtype, device), 0, index_tensor((10, 129), 37, device)), {}
    if kind == "rank3":
        return (make((4, 5, 6), dtype, device), 2, index_tensor((4, 3, 2), 6, device)), {}
    if kind == "noncontig":
        return (transposed((37, 129), dtype, device), 0, index_tensor((5, 129), 37, device)), {}
    raise ValueError(kind)


def cat_inputs(kind, dtype, device):
    if kind == "dim0":
        return ([make((3, 33), dtype, device), make((5, 33), dtype, device), make((1, 33), dtype, device)], 0), {}
    if kind == "dim1":
        return ([make((4, 3, 5), dtype, device), transposed((4, 5, 7), dtype, device)], 2), {}
    if kind == "legacy_empty":
        return ([make((0,), dtype, device), make((3, 4), dtype, device)], 0), {}
    if kind == "promote":
        return ([make((2, 3), dtype, device), make((2, 3), torch.float32, device)], 1), {}
    if kind == "bad_sizes":
        return ([make((2, 3), dtype, device), make((3, 4), dtype, device)], 0), {}
    raise ValueError(kind)


def topk_inputs(kind, dtype, device):
    if kind == "last":
        return (make((37, 129), dtype, device), 5), {}
    if kind == "smallest_dim0":
        return (make((37, 129), dtype, device), 3, 0, False), {}
    if kind == "long_row":
        return (make((3, 20000), dtype, device, low=-1000, high=1000), 50), {}
    if kind == "k1024":  # three rounds of radix selection before the sort
        return (make((2, 30000), dtype, device, low=-1000, high=1000), 1024), {}
    if kind == "ties_smallest":  # few distinct values: the k-th is one of many equal ones
        x = make((4, 5000), dtype, device, low=-4, high=4)
        return (x.round() if dtype.is_floating_point else x, 100, -1, False), {}
    if kind == "vocab_rows":  # many rows of a vocabulary: chunks keep what their group maxima bound
        return (make((40, 128256), dtype, device, low=-1000, high=1000), 50), {}
    if kind == "vocab_ties":  # half of each row few distinct values, where chunks may give the bound up
        x = make((24, 128256), dtype, device, low=-4, high=4)
        if dtype.is_floating_point:
            x[:, 64128:] = x[:, 64128:].round()
        return (x, 64), {}
    if kind == "vocab_k1024":  # floats: one bound for the whole row, about 1.1k candidates
        return (make((3, 128256), dtype, device, low=-1000, high=1000), 1024), {}
    if kind == "vocab_k1024_overflow":  # sorted both ways (they fit), a masked row and ties (the rounds)
        x = make((5, 128256), dtype, device, low=-1000, high=1000)
        x[0] -= 995  # k-th and best of either sign: 16-bit keys too far apart for 32-bit sort words
        x[1] = x[1].sort(descending=True).values
        x[2] = x[2].sort().values
        if dtype.is_floating_point:
            x[3] = float("-inf")
            x[3, 11:100000:331] = make((303,), dtype, device, low=-1000, high=1000)  # fewer than k finite
            x[4] = (x[4] / 200).round()  # about 11 distinct values
        return (x, 1000), {}
    if kind == "k_too_big":
        return (make((3, 4), dtype, device), 5), {}
    if kind == "k0":
        return (make((3, 4), dtype, device), 0), {}
    raise ValueError(kind)


def check_topk(result, reference, args):
    (v, i), (rv, ri) = result, reference
    torch.testing.assert_close(v, rv, equal_nan=True)
    dim = args[2] if len(args) > 2 else -1
    torch.testing.assert_close(torch.gather(args[0], dim, i), v, equal_nan=True)


def cases():
    c = [
        binary("add.Tensor"), binary("add.Tensor", kwargs={"alpha": 2}, dtypes=(torch.float32, torch.int32)),
        Case("add.Tensor", lambda k, d, dev: (binary_inputs("odd", d, dev)[0:2], {"alpha": 2.5}),
             dtypes=(torch.int32,), kinds=("float_alpha",)),
        Case("add.Tensor", mixed_dtypes, dtypes=(torch.float16, torch.int32, torch.float32), kinds=("odd", "broadcast")),
        binary("sub.Tensor"), binary("mul.Tensor"), binary("div.Tensor", nonzero=True),
        binary("div.Tensor_mode", nonzero=True, kwargs={"rounding_mode": "trunc"}),
        binary("div.Tensor_mode", nonzero=True, kwargs={"rounding_mode": "floor"}),
        binary("remainder.Tensor", nonzero=True), binary("maximum"), binary("minimum"),
        binary_scalar("add.Scalar", 2.5, kwargs={"alpha": 2}), binary_scalar("sub.Scalar", 3),
        binary_scalar("mul.Scalar", -1.5), binary_scalar("div.Scalar", 4),
        binary_scalar("div.Scalar_mode", -3, kwargs={"rounding_mode": "floor"}),
        binary_scalar("remainder.Scalar", 3),
        Case("where.self", where_inputs, dtypes=ALL, kinds=("odd", "empty", "noncontig", "int_condition")),
        unary("neg"), unary("abs"), unary("exp"), unary("log", positive=True), unary("sqrt", positive=True),
        unary("rsqrt", positive=True), unary("sigmoid"), unary("tanh"), unary("relu"), unary("gelu"),
        unary("gelu", kwargs={"approximate": "tanh"}), unary("silu"),
        Case("silu_and_mul", gated_inputs, reference=silu_and_mul_reference, kinds=("odd", "empty", "one", "rank3")),
        Case("gelu_and_mul", gated_inputs, reference=gelu_and_mul_reference, kinds=("odd", "rank3")),
        Case("fused_add_rms_norm", fused_norm_inputs, reference=fused_add_rms_norm_reference,
             kinds=("odd", "one", "long")),
        Case("rotary_embedding", rotary_inputs, reference=rotary_reference, kinds=("neox", "interleaved", "positions")),
        sum_like("sum.dim_IntList"), sum_like("mean.dim"),
        Case("amax", amax_inputs, dtypes=ALL, kinds=REDUCE_KINDS),
        Case("max.dim", with_index_inputs, dtypes=ALL, kinds=REDUCE_KINDS, check=check_values_and_indices),
        Case("min.dim", with_index_inputs, dtypes=ALL, kinds=REDUCE_KINDS, check=check_values_and_indices),
        Case("argmax", argmax_inputs, dtypes=FLOATS + INTS + (torch.bool,), kinds=REDUCE_KINDS, check=check_argmax),
        Case("softmax.int", softmax_inputs, dtypes=FLOATS + INTS, kinds=SOFTMAX_KINDS),
        Case("log_softmax.int", softmax_inputs, dtypes=FLOATS + INTS, kinds=SOFTMAX_KINDS),
        Case("layer_norm", layer_norm_inputs, kinds=("affine", "plain", "long", "noncontig", "bad_shape")),
        Case("rms_norm", rms_norm_inputs, kinds=("weight", "default_eps", "long")),
        Case("mm", mm_inputs, dtypes=FLOATS + INTS, kinds=("odd", "transposed", "skinny", "linear_decode", "split_k",
                                                            "split_k_even", "linear_prefill", "linear_prefill_ragged",
                                                            "linear_prefill_long", "rowmajor_prefill", "empty_k",
                                                            "one")),
        Case("addmm", addmm_inputs, dtypes=FLOATS, kinds=("row_bias", "full_bias", "beta0", "linear_decode",
                                                          "linear_prefill", "linear_prefill_ragged")),
        Case("bmm", bmm_inputs, dtypes=FLOATS + INTS, kinds=("odd", "transposed", "empty", "attention_scores")),
        Case("silu_and_mul_mm", silu_and_mul_mm_inputs, reference=silu_and_mul_mm_reference,
             kinds=("decode", "split_k", "prefill", "empty"), check=check_silu_and_mul_mm),
        Case("embedding", embedding_inputs, dtypes=FLOATS, kinds=("int64", "int32", "empty", "float_indices")),
        Case("index_select", index_select_inputs, dtypes=ALL, kinds=("dim0", "dim1", "noncontig", "empty")),
        Case("gather", gather_inputs, dtypes=ALL, kinds=("dim1", "dim0", "rank3", "noncontig")),
        Case("cat", cat_inputs, dtypes=ALL, kinds=("dim0", "dim1", "legacy_empty", "promote", "bad_sizes")),
        Case("topk", topk_inputs, dtypes=FLOATS + INTS, kinds=("last", "smallest_dim0", "long_row", "k1024",
                                                               "ties_smallest", "vocab_rows", "vocab_ties",
                                                               "vocab_k1024", "vocab_k1024_overflow", "k_too_big",
                                                               "k0"),
             check=check_topk),
    ]
    return c


def parameters():
    """(case, kind, dtype) triples, with readable ids."""
    out = []
    for case in cases():
        for kind in case.kinds:
            for dtype in case.dtypes:
                out.append((case, kind, dtype, f"{case.name}-{kind}-{str(dtype).replace('torch.', '')}"))
    return out


def distinct_ids(params):
    seen = {}
    ids = []
    for *_, label in params:
        n = seen.get(label, 0)
        seen[label] = n + 1
        ids.append(label if n == 0 else f"{label}-{n}")
    return ids


def isclose_tolerance(case, dtype):
    if case.tolerance and dtype in case.tolerance:
        rtol, atol = case.tolerance[dtype]
        return {"rtol": rtol, "atol": atol}
    return {}

