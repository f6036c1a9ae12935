"""The Python entry against Triton's own binder, over a matrix of argument kinds and values
(Note [Constexpr expressions] in src/python_entry/arguments.cpp): for each value, passed to a plain parameter
and to a tl.constexpr one, both accept it or both refuse it with the same exception type, and
where both accept it the variant is the one Triton specializes (type, divisibility, constexpr,
and the constexpr's value). Runs on every Triton of the matrix (scripts/test_matrix.sh)."""
import os
import sys

import numpy as np
import pytest
import torch
import triton
import triton.language as tl

import triton_reference as reference
from conftest import BUILD, KERNELS

sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, KERNELS)

import triton_jit  # noqa: E402
from python_entry import argument_kinds  # noqa: E402

KERNEL_FILE = os.path.join(KERNELS, "python_entry", "argument_kinds.py")

VALUES = {
    "0": 0, "1": 1, "16": 16, "17": 17, "-1": -1, "-16": -16,
    # Both sides of one CPython digit (30 bits) and of int32, which the entry reads apart.
    "2**30-16": 2**30 - 16, "2**30": 2**30, "-2**30": -2**30, "2**31-1": 2**31 - 1, "-2**31": -2**31,
    "-2**31-16": -2**31 - 16, "2**31": 2**31, "2**63": 2**63, "2**64-1": 2**64 - 1,
    "2**70": 2**70, "-2**70": -2**70, "1.5": 1.5, "-0.0": -0.0, "True": True, "False": False, "None": None,
    "'abc'": "abc", "'aDb'": "aDb", "(1, 2)": (1, 2), "(16, (1, None))": (16, (1, None)), "()": (),
    "tl.constexpr(5)": tl.constexpr(5), "tl.constexpr(1.5)": tl.constexpr(1.5),
    "tl.constexpr(None)": tl.constexpr(None), "tl.constexpr('s')": tl.constexpr("s"),
    "tl.constexpr(True)": tl.constexpr(True), "tl.float16": tl.float16, "tl.bfloat16": tl.bfloat16,
    "tl.int32": tl.int32, "torch.float16": torch.float16, "torch.bfloat16": torch.bfloat16,
    "np.float32(1.5)": np.float32(1.5), "np.int64(5)": np.int64(5), "np.int32(16)": np.int32(16),
    "np.bool_(True)": np.bool_(True), "np.float64(2.0)": np.float64(2.0), "helper": argument_kinds.helper,
}


def value_text(value):
    """How our variant text writes a constexpr value (argument_encoder.cpp, constexpr_text)."""
    if isinstance(value, tl.constexpr):
        value = value.value
    if isinstance(value, triton.runtime.jit.JITFunction):
        return f"{value.fn.__module__}:{value.fn.__name__}"
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, tuple):
        return "(tuple)"
    if isinstance(value, (int, float, np.generic)):
        value = value.item() if isinstance(value, np.generic) else value
        if isinstance(value, bool):
            return repr(value)
        if isinstance(value, int) and -2**63 <= value < 2**64:
            return str(value)
        if isinstance(value, float):
            return repr(value)
    return triton_jit.launch._constexpr_expression(value)


def leaf_text(kind, attr):
    kind = {"i1": "u1"}.get(kind, kind)  # Triton before 3.4 names bool i1; our variants always u1
    if kind == "constexpr":
        return "None" if attr is None else str(attr)
    return f"{kind}:16" if attr == "D" else kind


def expected_text(name, kind, attr, value):
    """Our variant text for what Triton's binder made of one argument."""
    if kind == "constexpr":
        return f"{name}={value_text(value)}"
    if isinstance(kind, tuple):
        def render(kinds, attrs):
            return "(" + ", ".join(render(k, a) if isinstance(k, tuple) else leaf_text(k, a)
                                   for k, a in zip(kinds, attrs)) + ")"
        return f"{name}: {render(kind, attr)}"
    return f"{name}: {leaf_text(kind, attr)}"


def tritons(values):
    """What Triton binds for a warmup: its binder over the values, a torch dtype passed to the
    plain parameter standing for a tensor of it (KernelInterface.warmup's MockTensor). To the
    constexpr one it stays a dtype, as a launch passes it (Triton's warmup would wrap it too)."""
    from triton.compiler import make_backend
    from triton.runtime.jit import MockTensor, create_function_from_signature
    values = (MockTensor.wrap_dtype(values[0]),) + tuple(values[1:])
    fn = reference.triton_jit_compile.load_kernel(os.path.realpath(KERNEL_FILE), "", "takes", []).fn
    binder = create_function_from_signature(fn.signature, fn.params,
                                            make_backend(reference.triton_jit_compile.gpu_target("cuda:90")))
    bound, specialization, _ = binder(*values)
    return [(kind, attr, value) for (kind, attr), value in zip(specialization, bound.values())]


def tritons_compile(values, function="takes", mocked=(0,)):
    """What Triton's run path does past the binder, up to its compile (no GPU needed): the source
    it builds from the specialization, attributes parsed from every string in it, compiled. A
    dtype at a position in `mocked` (or in a tuple there) stands for a tensor of it, as in
    Triton's warmup."""
    from triton.compiler import make_backend
    from triton.runtime.jit import MockTensor, create_function_from_signature, find_paths_if, get_iterable_path

    def mock(v):
        if isinstance(v, tuple):
            return type(v)(*(mock(x) for x in v)) if hasattr(v, "_fields") else tuple(mock(x) for x in v)
        return MockTensor.wrap_dtype(v)

    values = tuple(mock(v) if i in mocked else v for i, v in enumerate(values))
    fn = reference.triton_jit_compile.load_kernel(os.path.realpath(KERNEL_FILE), "", function, []).fn
    target = reference.triton_jit_compile.gpu_target("cuda:90")
    backend = make_backend(target)
    bound, specialization, _ = create_function_from_signature(fn.signature, fn.params, backend)(*values)
    kinds = [kind for kind, _ in specialization]
    attr_values = [attr for _, attr in specialization]
    constexprs = {p: get_iterable_path(list(bound.values()), p) for p in find_paths_if(kinds, lambda _, k: k == "constexpr")}
    attrs = {p: backend.parse_attr(get_iterable_path(attr_values, p))
             for p in find_paths_if(attr_values, lambda _, a: isinstance(a, str))}
    source = reference.triton_jit_compile._make_source(fn, dict(zip(fn.arg_names, kinds)), constexprs, attrs)
    return triton.compile(source, target=target)


def ours(values):
    info = triton_jit.jit(argument_kinds.takes).warmup(*values)
    return info["signature"]


@pytest.fixture(autouse=True)
def compile_for_sm90(monkeypatch, tmp_path_factory):
    monkeypatch.setenv("TRITON_JIT_TARGET", "cuda:90")


@pytest.mark.parametrize("place", ["plain", "constexpr"])
@pytest.mark.parametrize("label", sorted(VALUES))
def test_an_argument_kind_is_taken_as_triton_takes_it(label, place):
    value = VALUES[label]
    values = (value, 1) if place == "plain" else (1, value)
    try:
        theirs = tritons(values)
        triton_error = None
    except Exception as error:  # noqa: BLE001  (the kind of refusal is what is compared)
        triton_error = error
    try:
        our_text = ours(values)
        our_error = None
    except Exception as error:  # noqa: BLE001
        our_error = error
    if triton_error is not None:
        assert our_error is not None, f"Triton refuses {label} ({triton_error!r}); we took it as {our_text}"
        if isinstance(triton_error, AttributeError):
            # Triton before 3.4 has no rule for the value and its binder falls through to a
            # tensor's attributes; we say what the parameter takes.
            assert isinstance(our_error, TypeError), (our_error, triton_error)
        else:
            assert isinstance(our_error, type(triton_error)), (our_error, triton_error)
        return
    if isinstance(our_error, OverflowError):
        # Triton before 3.4 types an integer past 64 bits as i64 or u64; its launcher then fails
        # to pass it. We refuse it at the call, as newer Tritons do.
        assert any(kind in ("i64", "u64") and isinstance(v, int) and not -2**63 <= v < 2**64
                   for kind, _, v in theirs), (our_error, theirs)
        return
    if isinstance(our_error, triton_jit.CompileError):
        # We compile the source Triton's run path builds; where that Triton cannot compile it
        # either (3.9 parses a divisibility attribute out of a constexpr string holding "D"),
        # both refuse the call.
        with pytest.raises(triton.CompilationError):
            tritons_compile(values)
        return
    assert our_error is None, f"Triton takes {label} as {theirs}; we refused: {our_error}"
    expected = ", ".join(expected_text(name, kind, attr, v) for name, (kind, attr, v) in zip(("x", "C"), theirs))
    assert our_text == expected, (our_text, expected)
    for kind, attr, v in theirs:
        text = triton_jit.launch._constexpr_expression(v.value if isinstance(v, tl.constexpr) else v)
        if kind == "constexpr" and text is not None and not isinstance(v, (tuple, triton.runtime.jit.JITFunction)):
            from triton_jit_compile import evaluate_expression
            assert evaluate_expression(text, argument_kinds) == (v.value if isinstance(v, tl.constexpr) else v)


class Buffer:
    """A library's own view of a tensor's storage (FlagGems' StridedBuffer): data_ptr() and dtype."""

    def __init__(self, tensor, offset):
        self.tensor, self.offset, self.dtype = tensor, offset, tensor.dtype

    def data_ptr(self):
        return self.tensor.data_ptr() + self.offset * self.tensor.element_size()


@pytest.mark.parametrize("offset", [0, 1])
def test_an_object_with_data_ptr_and_dtype_is_a_pointer_as_triton_takes_it(offset):
    values = (Buffer(torch.empty(64, dtype=torch.float16), offset), 1)
    expected = ", ".join(expected_text(name, kind, attr, v) for name, (kind, attr, v) in zip(("x", "C"), tritons(values)))
    assert ours(values) == expected
    assert expected.startswith("x: *fp16" + (":16" if offset == 0 else ","))


def test_an_object_with_data_ptr_but_no_dtype_is_refused_by_name():
    class Address:
        def data_ptr(self):
            return 0
    with pytest.raises(Exception):
        tritons((Address(), 1))
    with pytest.raises(TypeError, match="argument 'x' has data_ptr\\(\\) but no dtype"):
        ours((Address(), 1))


def _tritons_ptx(function, values):
    """The PTX Triton's run path compiles for a call, every dtype in it standing for a tensor."""
    return tritons_compile(values, function, mocked=range(len(values))).asm["ptx"]


NAMEDTUPLE_PTX = r"""
import collections, json, sys
sys.path[:0] = sys.argv[1:4]
import torch, triton_jit
from python_entry import argument_kinds
low = collections.namedtuple("Low", ["low"])
cases = {"forward": collections.namedtuple("Pair", ["scale", "shift"])(3, low(5)),
         "swapped": collections.namedtuple("Pair", ["shift", "scale"])(low(3), 5),
         "alike": collections.namedtuple("Pair", ["scale", "shift"])(3, low(5))}
kernel = triton_jit.jit(argument_kinds.reads_fields)
out = {label: kernel.warmup(torch.float32, p, 16, grid=(1,))["ir"]["ptx"] for label, p in cases.items()}
pointers, config = collections.namedtuple("Ptrs", ["src", "dst"]), collections.namedtuple("Cfg", ["block", "scale"])
copies = triton_jit.jit(argument_kinds.copies_fields)
for block in (64, 128):
    try:
        out[f"copies {block}"] = copies.warmup(pointers(torch.float32, torch.float32), 100, config(block, 2.0),
                                               grid=(1,))["ir"]["ptx"]
    except triton_jit.CompileError:  # a Triton that cannot read a constexpr's fields (3.3) refuses it too
        out[f"copies {block}"] = "refused"
print(json.dumps(out))
"""


def test_a_namedtuple_compiles_to_the_code_triton_compiles_from_its_field_names(tmp_path):
    """Triton keeps a namedtuple's type and the kernel reads p.scale: namedtuples alike by position
    but with their fields named the other way round are two variants, each the PTX Triton compiles
    for it; another type of the same names is the same code (Note [Namedtuples] in
    src/python_entry/arguments.cpp)."""
    import collections
    import json
    import subprocess
    env = dict(os.environ, TRITON_JIT_KEEP_IR="1", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", NAMEDTUPLE_PTX, os.path.dirname(__file__),
                             os.path.join(BUILD, "python"), KERNELS], env=env, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    ours = json.loads(result.stdout.strip().splitlines()[-1])
    low = collections.namedtuple("Low", ["low"])
    assert ours["forward"] == _tritons_ptx("reads_fields", (torch.float32, collections.namedtuple(
        "Pair", ["scale", "shift"])(3, low(5)), 16))
    assert ours["swapped"] == _tritons_ptx("reads_fields", (torch.float32, collections.namedtuple(
        "Pair", ["shift", "scale"])(low(3), 5), 16))
    assert ours["forward"] != ours["swapped"] and ours["forward"] == ours["alike"]
    pointers, config = collections.namedtuple("Ptrs", ["src", "dst"]), collections.namedtuple("Cfg", ["block", "scale"])
    for block in (64, 128):  # pointers by name, and a constexpr namedtuple (its value keys the variant)
        try:
            theirs = _tritons_ptx("copies_fields", (pointers(torch.float32, torch.float32), 100, config(block, 2.0)))
        except triton.CompilationError:
            theirs = "refused"
        assert ours[f"copies {block}"] == theirs, block
    assert ours["copies 64"] != ours["copies 128"] or ours["copies 64"] == "refused"


def test_a_namedtuple_whose_fields_are_not_names_is_refused_by_name():
    class Odd(tuple):
        _fields = ("a b",)
    with pytest.raises(TypeError, match="argument 'p' is a namedtuple whose type's name or _fields"):
        triton_jit.jit(argument_kinds.reads_fields).warmup(torch.float32, Odd((1,)), 16, grid=(1,))
