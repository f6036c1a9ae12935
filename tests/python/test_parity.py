"""Parity: the (signature, constexprs, attributes) our C++ encoding produces for C++-typed
values equal what the installed Triton's own specializer produces for the same Python values.

Argument sets are generated (seeded) from edge values: 0, 1, multiples of 16, the int32 /
int64 / uint64 bounds, misaligned pointers through tensor offsets, every dtype Triton takes,
None, bools, floats, strings for constexprs. No expected value is written by hand.
"""
import json
import os
import random
import struct

import pytest
import torch  # noqa: F401  (loads libtorch before the parity module)

import triton_reference as reference
import triton_jit_parity
from conftest import KERNELS

KERNEL_FILE = os.path.join(KERNELS, "parity_kernels.py")

TENSOR_DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "int16", "int32", "int64", "uint8",
                 "uint16", "uint32", "uint64", "bool", "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz",
                 "float8_e5m2fnuz"]

INT_EDGES = [0, 1, 2, 3, 15, 16, 17, 32, 48, 1000, 1024, -1, -15, -16, -17, -32,
             2**31 - 16, 2**31 - 1, 2**31, 2**31 + 16, -2**31, -2**31 + 16, -2**31 - 1, -2**31 - 16,
             2**32, 2**32 + 1, 2**40 + 16, 2**63 - 16, 2**63 - 1, -2**63, -2**63 + 16,
             2**63, 2**63 + 16, 2**63 + 1, 2**64 - 16, 2**64 - 1]

C_INT_RANGES = {
    "int8": (-2**7, 2**7 - 1), "int16": (-2**15, 2**15 - 1), "int32": (-2**31, 2**31 - 1),
    "int64": (-2**63, 2**63 - 1), "long long": (-2**63, 2**63 - 1), "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1), "uint32": (0, 2**32 - 1), "uint64": (0, 2**64 - 1), "size_t": (0, 2**64 - 1),
    "scalar_int": (-2**63, 2**63 - 1), "optional_int64": (-2**63, 2**63 - 1),
}

FLOATS = [0.0, 1.0, -2.5, 0.1, 1e-3, 3.0e38, -0.0, 16.0]

_BASES = {}


def make_tensor(rng, dtype):
    """A CPU tensor of `dtype` at a random element offset, so its address is often misaligned."""
    base = _BASES.setdefault(dtype, torch.zeros(256, dtype=getattr(torch, dtype)))
    offset = rng.choice([0, 0, 1, 2, 3, 4, 8, 16, 5])
    tensor = base[offset:]
    return tensor, ("tensor", (dtype, tensor.data_ptr()))


def gen_int(rng, lo=-2**63, hi=2**64 - 1):
    value = rng.choice([v for v in INT_EDGES if lo <= v <= hi] + [rng.randint(max(lo, -2**40), min(hi, 2**40)) * 16])
    ctypes = [c for c, (clo, chi) in C_INT_RANGES.items() if clo <= value <= chi]
    return value, (rng.choice(ctypes), value)


def gen_float(rng):
    value = rng.choice(FLOATS)
    ctype = rng.choice(["float", "double", "scalar_float", "optional_double"])
    if ctype == "float":
        value = struct.unpack("f", struct.pack("f", value))[0]
    return value, (ctype, value)


def gen_bool(rng):
    value = rng.choice([True, False])
    return value, (rng.choice(["bool", "scalar_bool"]), value)


def gen_none(rng):
    return None, (rng.choice(["nullopt", "nullptr", "optional_int64", "optional_tensor"]), None)


def gen_scalar(rng):
    return rng.choice([gen_int, gen_int, gen_float, gen_bool, gen_none])(rng)


def gen_pointer(rng):
    return make_tensor(rng, rng.choice(TENSOR_DTYPES))


def gen_pointer_or_none(rng):
    return gen_none(rng) if rng.random() < 0.3 else gen_pointer(rng)


def gen_block(rng):
    return gen_int(rng, 1, 4096) if rng.random() < 0.8 else rng.choice([gen_float, gen_bool, gen_none])(rng)


def gen_string(rng):
    value = rng.choice(["fast", "exact", "", "tanh", "Dense"])
    return value, ("string", value)


def gen_tuple_of(*element_generators, nest=True):
    """A tuple of 1 to 4 elements from the generators, sometimes holding a nested tuple."""
    def generate(rng):
        items = []
        for _ in range(rng.randint(1, 4)):
            if nest and rng.random() < 0.2:
                items.append(gen_tuple_of(*element_generators, nest=False)(rng))
            else:
                items.append(rng.choice(element_generators)(rng))
        return tuple(v for v, _ in items), ("tuple", [c for _, c in items])
    return generate


def gen_constexpr_scalar(rng):
    return rng.choice([gen_int, gen_float, gen_bool, gen_none, gen_string])(rng)


def const(gen_value):
    return lambda rng: gen_value


# Per kernel: a generator per parameter, and how many trailing parameters may be omitted.
KERNELS_UNDER_TEST = {
    "pointwise": ([gen_pointer, gen_pointer, gen_pointer, gen_scalar, gen_block], 0),
    "row_sum": ([gen_pointer, gen_pointer, gen_int, gen_int, gen_block], 0),
    "matmul": ([gen_pointer] * 3 + [gen_int] * 9 + [gen_block] * 3, 0),
    "no_specialize": ([gen_pointer, gen_pointer, gen_int, gen_int, gen_scalar, gen_block], 0),
    "annotated": ([gen_pointer_or_none, gen_pointer, lambda r: gen_int(r, -2**63, 2**63 - 1),
                   lambda r: gen_int(r, 0, 2**32 - 1), lambda r: rng_choice(r, [gen_float, gen_int, gen_bool]),
                   gen_float, gen_bool, gen_block, lambda r: rng_choice(r, [gen_string, gen_int]),
                   lambda r: rng_choice(r, [gen_float, gen_int]), gen_bool], 4),
    "optional_bias": ([gen_pointer, gen_pointer_or_none, gen_pointer, gen_int, gen_scalar, gen_bool,
                       lambda r: rng_choice(r, [gen_bool, gen_none, gen_int]), gen_block], 0),
    "tuples": ([gen_tuple_of(gen_pointer, gen_pointer_or_none), gen_tuple_of(gen_int, gen_scalar), gen_scalar,
                gen_tuple_of(gen_constexpr_scalar), gen_block], 0),
}


def rng_choice(rng, generators):
    return rng.choice(generators)(rng)


def untag_tuple(value):
    return tuple(untag(v) for v in value)


def untag(tagged):
    (kind, value), = tagged.items()
    if kind == "float":
        return float.fromhex(value)
    if kind == "tuple":
        return untag_tuple(value)
    return None if kind == "none" else value


def typed(value):
    if isinstance(value, tuple):
        return ("tuple", tuple(typed(v) for v in value))
    return (type(value).__name__, value)


def tuplify(value):
    return tuple(tuplify(v) for v in value) if isinstance(value, list) else value


def path(text):
    return tuple(int(p) for p in text.split(","))


def ours(describe_json, cpp_args):
    request_json, _, _ = triton_jit_parity.encode(describe_json, cpp_args)
    request = json.loads(request_json)
    params = json.loads(describe_json)["params"]
    signature = {p["name"]: tuplify(t) for p, t in zip(params, request["signature"])}
    constexprs = {path(i): typed(untag(v)) for i, v in request["constexprs"].items()}
    attrs = {path(i): [list(a) for a in v] for i, v in request["attrs"].items()}
    return signature, constexprs, attrs


def triton_reference(name, values):
    signature, constexprs, attrs = reference.reference_specialization(KERNEL_FILE, name, values)
    return (signature, {i: typed(v) for i, v in constexprs.items()},
            {i: [list(a) for a in v] for i, v in attrs.items()})


SETS_PER_KERNEL = 90


@pytest.mark.parametrize("name", sorted(KERNELS_UNDER_TEST))
def test_generated_argument_sets_match_triton(name):
    generators, omittable = KERNELS_UNDER_TEST[name]
    describe_json = reference.describe(KERNEL_FILE, name)
    rng = random.Random(f"parity-{name}")
    compared = 0
    for _ in range(SETS_PER_KERNEL):
        count = len(generators) - rng.randint(0, omittable)
        pairs = [gen(rng) for gen in generators[:count]]
        values = [p[0] for p in pairs]
        cpp_args = [p[1] for p in pairs]
        try:
            expected = triton_reference(name, values)
        except (TypeError, KeyError, OverflowError):
            continue  # Triton rejects this set; test_rejections covers ours
        try:
            got = ours(describe_json, cpp_args)
        except ValueError as error:
            # Ours refuses values that do not fit an annotated type; Triton fails later, at launch.
            assert "does not fit" in str(error) or "expected 0 or 1" in str(error), error
            continue
        assert got == expected, f"{name}{tuple(cpp_args)}"
        compared += 1
    assert compared >= SETS_PER_KERNEL * 0.8, f"only {compared} sets compared"


def test_every_accepted_dtype_matches_triton():
    describe_json = reference.describe(KERNEL_FILE, "pointwise")
    for dtype in TENSOR_DTYPES:
        for offset in range(0, 8):
            base = torch.zeros(64, dtype=getattr(torch, dtype))
            t = base[offset:]
            values = [t, t, t, 1024, 128]
            cpp = [("tensor", (dtype, t.data_ptr()))] * 3 + [("int32", 1024), ("int64", 128)]
            assert ours(describe_json, cpp) == triton_reference("pointwise", values), (dtype, offset)


def test_unsupported_dtype_is_rejected_like_triton():
    describe_json = reference.describe(KERNEL_FILE, "pointwise")
    t = torch.zeros(4, dtype=torch.complex64)
    with pytest.raises((KeyError, TypeError)):
        triton_reference("pointwise", [t, t, t, 4, 128])
    cpp = [("tensor", ("complex64", t.data_ptr()))] * 3 + [("int32", 4), ("int32", 128)]
    with pytest.raises(TypeError, match=r"pointwise: argument 0 'x_ptr' has dtype ComplexFloat"):
        triton_jit_parity.encode(describe_json, cpp)


def test_string_for_runtime_parameter_is_rejected_like_triton():
    describe_json = reference.describe(KERNEL_FILE, "row_sum")
    t = torch.zeros(4)
    with pytest.raises((TypeError, AttributeError)):  # Triton 3.3 fails on the string's missing dtype
        triton_reference("row_sum", [t, t, "x", 4, 128])
    with pytest.raises(TypeError, match="row_sum: argument 2 'row_stride' got a string"):
        triton_jit_parity.encode(describe_json, [("tensor", ("float32", t.data_ptr()))] * 2 +
                                 [("string", "x"), ("int32", 4), ("int32", 128)])


def test_same_values_give_same_key_and_different_ones_differ():
    describe_json = reference.describe(KERNEL_FILE, "pointwise")
    t = torch.zeros(64)
    args = [("tensor", ("float32", t.data_ptr()))] * 3
    _, key_a, _ = triton_jit_parity.encode(describe_json, args + [("int32", 4096), ("int32", 128)])
    _, key_b, _ = triton_jit_parity.encode(describe_json, args + [("int64", 8192), ("int64", 128)])
    _, key_c, _ = triton_jit_parity.encode(describe_json, args + [("int64", 8193), ("int64", 128)])
    _, key_d, _ = triton_jit_parity.encode(describe_json, args + [("int64", 8192), ("int64", 256)])
    assert key_a == key_b  # same specialization: both divisible by 16, both i32
    assert key_a != key_c and key_a != key_d
