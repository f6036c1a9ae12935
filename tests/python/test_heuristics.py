"""Golden test of @triton.heuristics in C++: heuristics in the styles real kernel libraries write
are translated by the compile script, evaluated by the C++ evaluator, and compared with Python's
own evaluation of the same function, over edge values (negative numbers, zero, powers of two,
values past 2**31, Python's floor division and modulo of negatives). A value C++ gives must be
Python's; an error C++ gives must be an error in Python too, except that C++ refuses any int
beyond 64 bits, even in the middle of an expression (rather than wrap): that refusal is checked by
running Python again on an int that raises there."""
import itertools
import json
import linecache
import math
import random

import pytest
import torch  # noqa: F401  (loads libtorch before the parity module)
import triton
from triton.tools.tensor_descriptor import TensorDescriptor

import triton_jit_heuristics
import triton_jit_parity

THRESHOLD = 4096

# One "kernel": every name the heuristics below read, with the values each may take.
INTS = [0, 1, 2, 3, 15, 16, 17, 31, 64, 127, 128, 1000, 1024, 4096, 65535, 2**31 - 1, 2**31, 2**31 + 1, 2**40,
        3 * 2**40 + 7, 2**62, 2**63 - 1, -1, -2, -7, -16, -17, -128, -2**31, -2**31 - 1, -2**40 - 3, -2**62, -2**63]
POSITIVE = [1, 2, 3, 8, 16, 17, 32, 64, 100, 128, 256, 1000, 1024, 2**31 + 5, 2**40]
FLOATS = [0.0, -0.0, 0.5, 1.5, -2.25, 3.0, 1e-300, 1e300, -1e300, 0.1, 2.0**53, 7.0]
DTYPES = ["fp16", "bf16", "fp32", "fp64", "i8", "i32", "i64", "u8"]
DOMAINS = {
    "N": INTS, "M": INTS, "K": INTS, "a": INTS, "b": INTS, "c": INTS, "e": list(range(-3, 70)) + [-100],
    "BLOCK_M": POSITIVE, "BLOCK_K": POSITIVE, "BLOCK_SIZE": POSITIVE + [0, -8], "SPLIT_K": [1, 2, 4, 16],
    "scale": FLOATS, "flag": [True, False], "bias": [None, ("tensor", "fp32")], "mode": ["fast", "exact", ""],
    "x": [("tensor", d) for d in DTYPES], "y": [("tensor", d) for d in DTYPES],
}
PARAMS = {name: i for i, name in enumerate(DOMAINS)}


def named_style(args):
    return args["N"] // 2 if args["N"] % 2 == 0 else args["N"] * 3 + 1


def branching_style(args):  # FlagGems' random-number kernels choose their warps so
    if args["N"] <= 512:
        return 4
    elif args["N"] <= 1024:
        return 8
    else:
        return 16


def locals_style(args):
    """Local names, rebound and augmented, read after an if that may have changed them."""
    block = triton.next_power_of_2(args["N"])
    if block > 4096:
        block = 4096
    elif args["flag"]:
        block += 16
    warps: int = block // 256
    return max(warps, 1) * args["SPLIT_K"]


def returns_in_one_branch(args):
    if args["bias"] is None:
        return args["N"]


HEURISTICS = {
    "even": lambda args: args["N"] % args["BLOCK_SIZE"] == 0,
    "even_k": lambda args: args["K"] % (args["BLOCK_K"] * args["SPLIT_K"]) == 0,
    "block_pow2": lambda args: triton.next_power_of_2(args["N"]),
    "block_capped": lambda args: min(triton.next_power_of_2(args["N"]), 1024),
    "block_floor": lambda args: max(16, triton.next_power_of_2(args["N"])),
    "programs": lambda args: triton.cdiv(args["M"], args["BLOCK_M"]),
    "warps": lambda args: 4 if args["N"] <= 2048 else 8 if args["N"] <= 8192 else 16,
    "is_half": lambda args: args["x"].dtype == torch.float16,
    "is_16bit": lambda args: args["x"].dtype in (torch.float16, torch.bfloat16),
    "same_dtype": lambda args: args["x"].dtype == args["y"].dtype,
    "bits": lambda args: args["x"].element_size() * 8,
    "vector": lambda args: 16 // args["x"].element_size(),
    "half_or_one": lambda args: args["N"] // 2 if args["N"] > 0 else 1,
    "floordiv": lambda args: args["a"] // args["b"],
    "modulo": lambda args: args["a"] % args["b"],
    "truediv": lambda args: args["a"] / args["b"],
    "square": lambda args: args["a"] ** 2,
    "power": lambda args: 2 ** args["e"],
    "power_float": lambda args: args["scale"] ** args["e"],
    "shifts": lambda args: (args["a"] << 3) + (args["b"] >> 2),
    "shift_by": lambda args: args["N"] >> args["e"],
    "bit_ops": lambda args: args["a"] & 0xFF | (args["b"] ^ 3),
    "invert": lambda args: ~args["a"],
    "negate_abs": lambda args: -args["a"] + abs(args["b"]),
    "log2": lambda args: int(math.log2(args["N"])) if args["N"] > 0 else 0,
    "ceil_div": lambda args: math.ceil(args["N"] / 128),
    "sqrt_floor": lambda args: math.floor(math.sqrt(args["N"])) if args["N"] >= 0 else -1,
    "and_value": lambda args: args["flag"] and args["N"] > 1024,
    "or_operand": lambda args: args["flag"] or args["N"],
    "not": lambda args: not args["flag"],
    "chained": lambda args: 0 < args["N"] <= 4096,
    "float_compare": lambda args: args["scale"] * 2.0 > 1.5,
    "to_float": lambda args: float(args["N"]) * args["scale"],
    "to_bool": lambda args: bool(args["N"] % 16),
    "has_bias": lambda args: args["bias"] is not None,
    "bias_choice": lambda args: args["N"] if args["bias"] is None else args["N"] + 1,
    "min3": lambda args: min(args["a"], args["b"], args["c"]),
    "mixed_max": lambda args: max(args["scale"], args["a"]),
    "past_2_31": lambda args: args["M"] * args["N"] >= 2 ** 31,
    "pow2_negative": lambda args: triton.next_power_of_2(args["a"]),
    "aligned": lambda args: args["a"] // 16 * 16 == args["a"],
    "round_up": lambda args: (args["N"] + 127) // 128 * 128,
    "module_constant": lambda args: args["N"] > THRESHOLD,
    "mode": lambda args: args["mode"] == "fast",
    "mode_choice": lambda args: "exact" if args["mode"] == "" else args["mode"],
    "to_int": lambda args: int(args["scale"] * 10),
    "int_float_equal": lambda args: args["a"] == float(args["a"]),
    "named": named_style,
    "branching": branching_style,
    "locals": locals_style,
    "falls_off": returns_in_one_branch,
    "is_tensor": lambda args: isinstance(args["bias"], torch.Tensor),
    "is_tensor_or_descriptor": lambda args: isinstance(args["x"], (torch.Tensor, TensorDescriptor)),
}

ERRORS = (ZeroDivisionError, ValueError, OverflowError, TypeError)
SETS = 250


class I64(int):
    """An int that raises OverflowError when a result leaves the 64-bit range."""

    @staticmethod
    def wrap(value):
        if isinstance(value, bool) or not isinstance(value, int):
            return value
        if not -2**63 <= value < 2**63:
            raise OverflowError("beyond 64 bits")
        return I64(value)


def _checked(name):
    def method(self, *others):
        return I64.wrap(getattr(int, name)(self, *others))
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__floordiv__", "__rfloordiv__",
              "__mod__", "__rmod__", "__pow__", "__rpow__", "__lshift__", "__rlshift__", "__rshift__", "__rrshift__",
              "__and__", "__rand__", "__or__", "__ror__", "__xor__", "__rxor__", "__neg__", "__pos__", "__abs__",
              "__invert__"):
    setattr(I64, _name, _checked(_name))


def python_value(fn, args, bounded=False):
    named = {name: (torch.empty(0, dtype=TORCH_DTYPES[v[1]]) if isinstance(v, tuple)
                    else I64.wrap(v) if bounded else v) for name, v in args.items()}
    value = fn(named)
    return int(value) if isinstance(value, I64) else value


def leaves_64_bits(fn, args):
    """Whether Python meets an int beyond 64 bits evaluating fn: in the middle (for generated
    heuristics, int() of a big float included), or as the result."""
    scope = fn.__globals__
    saved = scope.get("int", _MISSING)
    if "__generated__" in scope:
        scope["int"] = lambda *value: I64.wrap(int(*value))
    try:
        value = python_value(fn, args, bounded=True)
    except OverflowError:
        return True
    except ERRORS:
        return False
    finally:
        if saved is _MISSING:
            scope.pop("int", None)
        else:
            scope["int"] = saved
    return isinstance(value, int) and not isinstance(value, bool) and not -2**63 <= value < 2**63


_MISSING = object()


TORCH_DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16, "fp32": torch.float32, "fp64": torch.float64,
                "i8": torch.int8, "i32": torch.int32, "i64": torch.int64, "u8": torch.uint8}


def same(a, b):
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    return a == b


def test_there_are_at_least_thirty_heuristics_in_library_styles():
    assert len(HEURISTICS) >= 30


def compare_with_python(name, fn, rng, sets):
    """Evaluates fn's translation in C++ and fn in Python over `sets` random argument sets; the
    number of sets where both gave a value (which must be the same)."""
    program, why = triton_jit_heuristics.translate(fn, PARAMS)
    assert program is not None, why
    program_json = json.dumps(program)
    compared = 0
    for _ in range(sets):
        args = {n: rng.choice(DOMAINS[n]) for n in DOMAINS}
        try:
            expected, python_error = python_value(fn, args), None
        except ERRORS as error:
            expected, python_error = None, error
        try:
            got, cpp_error = triton_jit_parity.evaluate_heuristic(program_json, [args[n] for n in DOMAINS]), None
        except ValueError as error:
            got, cpp_error = None, str(error)
            assert cpp_error.startswith("triton_jit: k: heuristic 'h': "), cpp_error
        if cpp_error is not None and "beyond 64 bits" in cpp_error:
            assert leaves_64_bits(fn, args), f"{name}{args}: C++ refused a 64-bit overflow Python does not meet"
        elif python_error is not None:
            assert cpp_error is not None, f"{name}{args}: Python raised {python_error!r}, C++ gave {got!r}"
        else:
            assert cpp_error is None, f"{name}{args}: C++ raised {cpp_error}, Python gave {expected!r}"
            assert same(got, expected), f"{name}{args}: C++ {got!r}, Python {expected!r}"
            compared += 1
    return compared


@pytest.mark.parametrize("name", sorted(HEURISTICS))
def test_cpp_evaluation_matches_python(name):
    compared = compare_with_python(name, HEURISTICS[name], random.Random(f"heuristic-{name}"), SETS)
    assert compared > SETS // 4, f"only {compared} sets gave a value"


# Differential testing over generated expressions: random heuristics built from the operations
# the translator accepts (arithmetic, bitwise, comparisons, conditionals, and/or/not, min, max,
# abs, int, float, bool, Triton's cdiv and next_power_of_2) over the kernel's arguments.
class ExpressionGenerator:
    INT_LEAVES = ['args["N"]', 'args["M"]', 'args["K"]', 'args["a"]', 'args["b"]', 'args["BLOCK_M"]',
                  'args["SPLIT_K"]', "0", "1", "2", "3", "7", "16", "1024", "-5"]
    FLOAT_LEAVES = ['args["scale"]', "0.5", "2.0", "-1.25"]

    def __init__(self, rng):
        self.rng = rng

    def integer(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.25:
            return r.choice(self.INT_LEAVES)
        kind = r.randrange(9)
        a, b = self.integer(depth - 1), self.integer(depth - 1)
        if kind == 0:
            return f"({a} {r.choice(['+', '-', '*'])} {b})"
        if kind == 1:
            return f"({a} {r.choice(['//', '%'])} {b})"
        if kind == 2:
            return f"({a} {r.choice(['&', '|', '^'])} {b})"
        if kind == 3:
            return f"({a} {r.choice(['<<', '>>'])} {r.randrange(0, 8)})"
        if kind == 4:
            return f"{r.choice(['min', 'max'])}({a}, {b})"
        if kind == 5:
            return r.choice([f"abs({a})", f"(-{a})", f"(~{a})", f"({a} ** {r.randrange(0, 4)})"])
        if kind == 6:
            return r.choice([f"triton.cdiv({a}, {b})", f"triton.next_power_of_2({a})"])
        if kind == 7:
            return f"({a} if {self.condition(depth - 1)} else {b})"
        return f"int({self.floating(depth - 1)})"

    def floating(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return r.choice(self.FLOAT_LEAVES)
        kind = r.randrange(4)
        if kind == 0:
            return f"({self.floating(depth - 1)} {r.choice(['+', '-', '*', '/'])} {self.floating(depth - 1)})"
        if kind == 1:
            return f"({self.integer(depth - 1)} / {self.integer(depth - 1)})"
        if kind == 2:
            return f"float({self.integer(depth - 1)})"
        return f"{r.choice(['min', 'max'])}({self.floating(depth - 1)}, {self.integer(depth - 1)})"

    def condition(self, depth):
        r = self.rng
        if depth <= 0 or r.random() < 0.3:
            return r.choice(['args["flag"]', f'({self.integer(0)} {r.choice(["<", "<=", "==", "!=", ">", ">="])} '
                                             f'{self.integer(0)})'])
        kind = r.randrange(4)
        if kind == 0:
            ops = [r.choice(["<", "<=", "==", "!=", ">", ">="]) for _ in range(r.randrange(1, 3))]
            terms = [self.integer(depth - 1) for _ in range(len(ops) + 1)]
            return "(" + " ".join(t + f" {op}" for t, op in zip(terms, ops)) + f" {terms[-1]})"
        if kind == 1:
            return f"({self.condition(depth - 1)} {r.choice(['and', 'or'])} {self.condition(depth - 1)})"
        if kind == 2:
            return f"(not {self.condition(depth - 1)})"
        return f"bool({self.integer(depth - 1)})"

    def heuristic(self, depth=3):
        r = self.rng.random()
        body = self.integer(depth) if r < 0.6 else self.floating(depth) if r < 0.8 else self.condition(depth)
        return f"def h(args):\n    return {body}\n"


def generated_heuristic(index, source):
    filename = f"<generated-heuristic-{index}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    scope = {"triton": triton, "__generated__": True}
    exec(compile(source, filename, "exec"), scope)
    return scope["h"]


@pytest.mark.parametrize("seed", range(16))
def test_generated_expressions_evaluate_in_cpp_as_in_python(seed):
    rng = random.Random(f"generated-{seed}")
    generator = ExpressionGenerator(rng)
    compared = 0
    for index in range(80):
        source = generator.heuristic()
        fn = generated_heuristic(f"{seed}-{index}", source)
        compared += compare_with_python(source.strip(), fn, rng, 40)
    assert compared > 80 * 40 // 4, f"only {compared} sets gave a value"


def test_integer_division_of_negatives_and_big_values_exhaustively():
    programs = {op: json.dumps(triton_jit_heuristics.translate(HEURISTICS[op], PARAMS)[0])
                for op in ("floordiv", "modulo", "truediv")}
    for a, b in itertools.product(INTS, INTS):
        args = [a if n == "a" else b if n == "b" else DOMAINS[n][0] for n in DOMAINS]
        for op, fn in (("floordiv", lambda: a // b), ("modulo", lambda: a % b), ("truediv", lambda: a / b)):
            try:
                expected = fn()
            except ZeroDivisionError:
                with pytest.raises(ValueError):
                    triton_jit_parity.evaluate_heuristic(programs[op], args)
                continue
            if isinstance(expected, int) and not -2**63 <= expected < 2**63:
                continue  # -2**63 // -1
            assert same(triton_jit_parity.evaluate_heuristic(programs[op], args), expected), (op, a, b)


def test_what_cannot_be_translated_says_why():
    cases = {
        lambda args: args["x"].numel() > 1024: "the method 'numel' of args['x']",
        lambda args: sum(args[k] for k in ("M", "N")): "a call of this function",
        lambda args: args["nope"] > 1: "not a parameter of the kernel",
        lambda args: args["N"] > 1267650600228229401496703205376: "an integer beyond 64 bits",
        # what Python evaluates and the evaluator would refuse at every call: Python's then
        lambda args: args["scale"] < float("inf"): "float of a string",
        lambda args: float("nan") if args["N"] else 1.0: "float of a string",
        lambda args: "abc" < "abd": "ordering of strings",
        lambda args: "ab" * args["N"]: "arithmetic with a string",
        lambda args: args["mode"] + "_fast": "arithmetic with a string",
    }
    for fn, reason in cases.items():
        program, why = triton_jit_heuristics.translate(fn, PARAMS)
        assert program is None and reason in why, why
    for fn, reason in ((_bound_in_one_branch, "the local name 'block' may be read before it is bound"),
                       (_loops, "the statement `for"),
                       (lambda args: isinstance(args["N"], int), "isinstance with a class other than")):
        program, why = triton_jit_heuristics.translate(fn, PARAMS)
        assert program is None and reason in why, why


def _bound_in_one_branch(args):  # Python raises UnboundLocalError for N <= 0: Python's to run
    if args["N"] > 0:
        block = args["N"]
    return block


def _loops(args):
    total = 0
    for name in ("M", "N"):
        total += args[name]
    return total


def test_a_kernel_modules_own_cdiv_and_next_power_of_2_are_not_tritons(tmp_path):
    """Kernel modules are imported under names that start with "triton"; a function of theirs named
    like Triton's is theirs (Python runs it), not Triton's."""
    import importlib.util
    source = tmp_path / "triton_user_kernels.py"
    source.write_text(
        "def cdiv(a, b):\n    return a // b\n\n"
        "def next_power_of_2(n):\n    return 2 if n == 0 else n\n\n"
        "OWN = [lambda args: cdiv(args['N'], 4), lambda args: next_power_of_2(args['N'])]\n"
        "import triton\nTRITONS = [lambda args: triton.cdiv(args['N'], 4)]\n")
    spec = importlib.util.spec_from_file_location("triton_user_kernels", source)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    for fn in module.OWN:
        program, why = triton_jit_heuristics.translate(fn, PARAMS)
        assert program is None and "a call of this function" in why, why
    program, why = triton_jit_heuristics.translate(module.TRITONS[0], PARAMS)
    assert program is not None, why
    args = [7 if n == "N" else DOMAINS[n][0] for n in DOMAINS]
    assert triton_jit_parity.evaluate_heuristic(json.dumps(program), args) == 2
