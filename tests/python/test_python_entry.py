"""The Python entry: triton_jit.jit / triton_jit.load, called as Triton's kernel[grid](...).

Without a GPU: binding (positional, keyword, defaults), specialisation through warmup(), the
decorators, and the errors. On a GPU: every kernel of tests/kernels/python_entry launched by
Triton and by the runtime gives the same bits, with tuple and lambda grids, descriptors, CUDA
graphs, side streams and torch.compile."""
import os
import subprocess
import sys

import pytest
import torch
import triton
import triton.language as tl

from conftest import BUILD, KERNELS, requires_gpu

sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, KERNELS)

import decorated_kernels  # noqa: E402
import gpu_decorated  # noqa: E402
import triton_jit  # noqa: E402  (the build tree's package, as the wheel lays it out)
from python_entry import kernels  # noqa: E402

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

KERNEL_FILE = os.path.join(KERNELS, "python_entry", "kernels.py")


def cpu(n, dtype=torch.float32):
    return torch.empty(n, dtype=dtype)


# ---- binding and specialisation (no GPU needed) -------------------------------------------------


def test_jit_wraps_the_module_level_kernel_once_and_load_reads_a_file():
    k = triton_jit.jit(kernels.add)
    assert isinstance(k, triton_jit.Kernel)
    assert triton_jit.jit(kernels.add) is k and triton_jit.jit(k) is k
    assert k.__name__ == "add" and k.arg_names == ["x_ptr", "y_ptr", "out_ptr", "n", "BLOCK"]
    from_file = triton_jit.load(KERNEL_FILE, "add")
    assert from_file.arg_names == k.arg_names and from_file.source_file.endswith("kernels.py")
    configs = triton_jit.jit(kernels.tuned_add).autotune_configs()
    assert len(configs) == 2 and "BLOCK=128" in configs[0] and "BLOCK=512" in configs[1], configs


def kinds(info):
    """{parameter: its type or constexpr value} of a variant's signature text."""
    out = {}
    for part in info["signature"].split(", "):
        name, sep, kind = part.partition(": ")
        if not sep:
            name, _, kind = part.partition("=")
            kind = "=" + kind
        out[name] = kind
    return out


def test_warmup_specialises_as_triton_does():
    k = triton_jit.jit(kernels.add)
    x = cpu(4096)
    aligned = kinds(k.warmup(x, x, x, 4096, BLOCK=1024, grid=None))
    assert aligned == {"x_ptr": "*fp32:16", "y_ptr": "*fp32:16", "out_ptr": "*fp32:16", "n": "i32:16",
                       "BLOCK": "=1024"}, aligned
    assert kinds(k.warmup(x, x, x, 4095, BLOCK=1024))["n"] == "i32"
    assert kinds(k.warmup(x, x, x, 1, BLOCK=1024))["n"] == "=1"
    assert kinds(k.warmup(x, x, x, 2**40 + 1, BLOCK=1024))["n"] == "i64"
    half = kinds(k.warmup(cpu(64, torch.float16), x[1:], x, 4096, BLOCK=1024))
    assert (half["x_ptr"], half["y_ptr"]) == ("*fp16:16", "*fp32"), half


def test_keywords_built_at_run_time_are_matched_by_their_text():
    # Keywords written in source are interned and match by address (Note [Interned names]); one
    # built by code is not interned and must still find its parameter or option.
    k = triton_jit.jit(kernels.add)
    x = cpu(4096)
    block, warps = "".join(["BL", "OCK"]), "".join(["num_", "warps"])
    written = k.warmup(x, x, x, 4096, BLOCK=1024, num_warps=8)
    built = k.warmup(x, x, x, 4096, **{block: 1024, warps: 8})
    assert built["signature"] == written["signature"] and built["num_warps"] == written["num_warps"] == 8, built
    with pytest.raises(TypeError, match="got multiple values for argument 'BLOCK'"):
        k.warmup(x, x, x, 4096, 1024, **{block: 1024})


def test_keywords_positionals_and_defaults_select_the_same_variant():
    k = triton_jit.jit(kernels.affine)
    x = cpu(256)
    by_position = k.warmup(x, x, 100, 2.0, None, "none", 128)
    by_keyword = k.warmup(out_ptr=x, x_ptr=x, n=100)
    assert by_position["signature"] == by_keyword["signature"], (by_position, by_keyword)
    assert kinds(by_keyword)["ACT"] in ("='none'", "=none"), by_keyword
    # A parameter left out between given ones takes its default (alpha), the later ones are given.
    relu = k.warmup(x, x, 100, bias_ptr=x, ACT="relu", num_warps=2)
    assert "relu" in kinds(relu)["ACT"] and relu["num_warps"] == 2, relu
    assert kinds(relu)["alpha"] == "fp32" and kinds(relu)["bias_ptr"] == "*fp32:16", relu


def test_tuples_and_the_decorators():
    pair = triton_jit.jit(kernels.strided_pair).warmup(cpu(64), cpu(64), (4, 16), FLIP=True, BLOCK=64)
    assert "dims: (i32, i32:16), FLIP=True" in pair["signature"], pair
    heuristic = triton_jit.jit(kernels.scaled_copy)
    assert "BLOCK=256" in heuristic.warmup(cpu(8192), cpu(8192), 8192, 0.5)["signature"]
    assert "BLOCK=64" in heuristic.warmup(cpu(100), cpu(100), 100, 0.5)["signature"]
    tuned = triton_jit.jit(kernels.tuned_add).warmup(cpu(1000), cpu(1000), cpu(1000), 1000)
    # Untuned: the first config; where a GPU run tuned n=1000 before (the cache persists), its choice.
    assert ("BLOCK=128" in tuned["signature"] and tuned["num_warps"] == 4) or \
        ("BLOCK=512" in tuned["signature"] and tuned["num_warps"] == 8), tuned


def test_a_decorated_call_passes_the_parameters_no_decorator_sets():
    between = triton_jit.jit(decorated_kernels.block_between)  # (x_ptr, BLOCK, out_ptr, n): BLOCK is the heuristic's
    x = cpu(100)
    assert "BLOCK=128" in between.warmup(x, x, 100)["signature"]
    assert "BLOCK=128" in between.warmup(x, out_ptr=x, n=100)["signature"]
    with pytest.raises(ValueError, match="argument 'BLOCK' is set by the kernel's @triton.autotune configs or"):
        between.warmup(x, x, 100, BLOCK=64)
    with pytest.raises(TypeError, match="block_between takes 3 arguments, got 4"):
        between.warmup(x, 64, x, 100)


@pytest.mark.parametrize("call, message", [
    (lambda k, x: k.warmup(x, x, x, 8, 64, 1), "add takes 5 arguments, got 6"),
    (lambda k, x: k.warmup(x, x, x, 8, n=8, BLOCK=64), "multiple values for argument 'n'"),
    (lambda k, x: k.warmup(x, x, n=8, BLOCK=64), "missing argument 'out_ptr'"),
    (lambda k, x: k.warmup(x, x, x, [8], BLOCK=64), "argument 'n' must be a torch.Tensor"),
    (lambda k, x: k.warmup(x, x, x, 2**70, BLOCK=64), "'n' is an integer that does not fit in 64 bits"),
    (lambda k, x: k.warmup(x, x, x, 8, BLOCK=64, num_warps="4"), "num_warps' must be an int"),
    (lambda k, x: k.warmup(x, x, x, 8, BLOCK=64, colour=[1]), "keyword argument 'colour' is neither a parameter"),
    (lambda k, x: k["grid"](x, x, x, 8, BLOCK=64), "the grid must be a tuple of 1 to 3 ints"),
    (lambda k, x: k[(1, 2, 3, 4)](x, x, x, 8, BLOCK=64), "the grid must be a tuple of 1 to 3 ints"),
    (lambda k, x: k[(-1,)](x, x, x, 8, BLOCK=64), "each grid dimension must be an int"),
    (lambda k, x: k.run(x, x, x, 8, BLOCK=64), "a launch needs a grid"),
])
def test_bad_calls_name_the_kernel_and_the_argument(call, message):
    with pytest.raises((TypeError, ValueError, OverflowError)) as error:  # OverflowError: as Triton's
        call(triton_jit.jit(kernels.add), cpu(8))
    assert message in str(error.value)
    assert str(error.value).startswith("add"), str(error.value)


def test_kernel_grid_hands_back_one_launcher_while_nobody_else_holds_it():
    k = triton_jit.jit(kernels.add)
    assert len({id(k[(n,)]) for n in range(1, 50)}) == 1
    kept = k[(1,)]
    assert k[(2,)] is not kept  # a launcher somebody holds keeps its grid
    assert isinstance(kept, triton_jit.Launcher)


def test_bad_kernels_raise_python_exceptions():
    with pytest.raises(LookupError, match="no function 'nope'"):
        triton_jit.load(KERNEL_FILE, "nope")
    with pytest.raises(triton_jit.CompileError):
        triton_jit.load(os.path.join(KERNELS, "compile_error.py"), "bad_block").warmup(cpu(8), 8, BLOCK=100)
    with pytest.raises(TypeError, match="expected a @triton.jit function"):
        triton_jit.jit(print)


CLOSURE_KERNELS = r"""
import json, sys
sys.path[:0] = [sys.argv[1]]
import torch, triton, triton.language as tl, triton_jit


def make(factor):
    @triton.jit
    def scaled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
        o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)
    FACTOR = tl.constexpr(factor)
    return scaled


x = torch.empty(1024)
out = {}
for factor in sys.argv[2:]:
    k = triton_jit.jit(make(float(factor)))
    info = k.warmup(x, x, 1024, BLOCK=256)
    out[factor] = {"ptx": info["ir"]["ptx"], "compiles": k.stats()["compiles"]}
print(json.dumps(out))
"""


def test_kernels_made_inside_a_function_compile_with_their_closure(tmp_path):
    """Triton compiles a kernel defined in a function with the values it reads from the function
    (here a constexpr factor): each object compiles with its own, and the persistent cache gives a
    later process the code of the factor it asks for, whatever order it makes them in."""
    import json
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_JIT_TARGET="cuda:90",
               CUDA_VISIBLE_DEVICES="", TRITON_JIT_KEEP_IR="1")

    script = tmp_path / "closures.py"  # Triton reads a kernel's source from its file
    script.write_text(CLOSURE_KERNELS)

    def run(*factors):
        result = subprocess.run([sys.executable, str(script), os.path.join(BUILD, "python"), *factors],
                                env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-4000:]
        return json.loads(result.stdout.strip().splitlines()[-1])

    first = run("3.0", "5.0")
    assert "0f40400000" in first["3.0"]["ptx"] and "0f40A00000" in first["5.0"]["ptx"]  # 3.0f, 5.0f
    assert first["3.0"]["compiles"] == first["5.0"]["compiles"] == 1
    later = run("5.0", "3.0")  # the other order: other kernel objects, the cache's entries
    assert later["5.0"]["ptx"] == first["5.0"]["ptx"] and later["3.0"]["ptx"] == first["3.0"]["ptx"]
    assert later["5.0"]["compiles"] == later["3.0"]["compiles"] == 0


def test_a_kernel_defined_again_with_alike_values_is_the_kernel_made_first():
    """A function that defines its kernel on every call (as tests and some wrappers do) gets one
    runtime kernel per definition and values, not one per call: its variants load once."""
    def make(factor):
        @triton.jit
        def again(x_ptr, out_ptr, n, BLOCK: tl.constexpr = 64):
            o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)
        FACTOR = tl.constexpr(factor)
        return again

    first = triton_jit.jit(make(2.0))
    assert triton_jit.jit(make(2.0)) is first
    assert triton_jit.jit(make(3.0)) is not first  # another value it reads
    assert triton_jit.jit(make(-0.0)) is not triton_jit.jit(make(0.0))  # another constant to the kernel
    x = cpu(1024)
    assert first.warmup(x, x, 1024)["signature"].endswith("BLOCK=64")


# ---- globals changed at run time (Note [Globals changed at run time]) ---------------------------

GLOBALS_MODULE = """import triton
import triton.language as tl

FACTOR = tl.constexpr(2.0)


@triton.jit
def scaled(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)
"""


def test_a_global_changed_after_the_first_launch_is_refused_as_triton_refuses_it(tmp_path, monkeypatch):
    (tmp_path / "changing_globals.py").write_text(GLOBALS_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import changing_globals
    x = cpu(1024)
    k = triton_jit.jit(changing_globals.scaled)
    k.warmup(x, x, 1024, BLOCK=256)
    before = changing_globals.FACTOR
    changing_globals.FACTOR = triton.language.constexpr(3.0)
    with pytest.raises(RuntimeError) as ours:
        k.warmup(x, x, 1024, BLOCK=256)
    # Triton's own check (JITFunction.run, which needs a GPU driver to reach): the same words.
    assert str(ours.value) == (f"Global variable FACTOR has changed since we compiled this kernel, from {before} "
                               f"to {changing_globals.FACTOR}"), str(ours.value)
    changing_globals.FACTOR = triton.language.constexpr(2.0)  # as it was: launches again
    k.warmup(x, x, 1024, BLOCK=256)


CHANGED_BEFORE_LAUNCH = r"""
import sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import torch, triton, triton_jit
import changing_globals
if sys.argv[3] != "as written":
    changing_globals.FACTOR = triton.language.constexpr(float(sys.argv[3]))
k = triton_jit.jit(changing_globals.scaled)
x = torch.empty(1024)
k.warmup(x, x, 1024, BLOCK=256)
print("compiles", k.stats()["compiles"])
"""


def test_a_variant_compiled_under_a_changed_global_is_not_served_to_a_process_without_the_change(tmp_path):
    (tmp_path / "changing_globals.py").write_text(GLOBALS_MODULE)
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_JIT_TARGET="cuda:90",
               CUDA_VISIBLE_DEVICES="")

    def compiles(factor):
        result = subprocess.run([sys.executable, "-c", CHANGED_BEFORE_LAUNCH, os.path.join(BUILD, "python"),
                                 str(tmp_path), factor], env=env, capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr
        return int(result.stdout.split()[-1])

    assert compiles("3.0") == 1  # the program set FACTOR before its first launch: Triton compiles with 3
    assert compiles("as written") == 1  # not served the variant made with 3
    assert compiles("as written") == 0


# ---- launches, against Triton's (GPU) -----------------------------------------------------------


def both(kernel, grid, *args, **kwargs):
    """Launches with Triton on copies of the tensors, then with the runtime; returns both sets."""
    def copy(a):
        return a.clone() if isinstance(a, torch.Tensor) else a

    copies = [copy(a) for a in args]
    keyword_copies = {name: copy(a) for name, a in kwargs.items()}
    kernel[grid](*copies, **keyword_copies)
    triton_jit.jit(kernel)[grid](*args, **kwargs)
    torch.cuda.synchronize()
    return copies + list(keyword_copies.values()), list(args) + list(kwargs.values())


def assert_same_bits(theirs, ours):
    for a, b in zip(theirs, ours):
        if isinstance(a, torch.Tensor):
            assert torch.equal(a, b), (a, b)


@requires_gpu
@pytest.mark.parametrize("n", [1, 1000, 4096, 100003])
def test_launches_match_triton_bit_for_bit(n):
    g = torch.Generator(device="cuda").manual_seed(n)
    x = torch.randn(n, device="cuda", generator=g)
    y = torch.randn(n, device="cuda", generator=g)
    assert_same_bits(*both(kernels.add, (triton.cdiv(n, 256),), x, y, torch.empty_like(x), n, BLOCK=256))
    assert_same_bits(*both(kernels.add, lambda META: (triton.cdiv(META["n"], META["BLOCK"]),), x, y,
                           torch.zeros_like(x), n, BLOCK=512, num_warps=8))
    assert_same_bits(*both(kernels.affine, (triton.cdiv(n, 128),), x, torch.zeros_like(x), n))
    assert_same_bits(*both(kernels.affine, (triton.cdiv(n, 64),), x, torch.zeros_like(x), n, 0.5, y, "relu", BLOCK=64))
    assert_same_bits(*both(kernels.affine, (triton.cdiv(n, 128),), x, torch.zeros_like(x), n, bias_ptr=y, ACT="relu"))
    assert_same_bits(*both(kernels.scaled_copy, lambda META: (triton.cdiv(n, META["BLOCK"]),), x,
                           torch.zeros_like(x), n, 3.0))
    assert_same_bits(*both(kernels.tuned_add, lambda META: (triton.cdiv(n, META["BLOCK"]),), x, y,
                           torch.zeros_like(x), n))
    many = [torch.randn(n, device="cuda", generator=g) for _ in range(8)]
    assert_same_bits(*both(kernels.sum16, (triton.cdiv(n, 1024),), *many, torch.zeros_like(x), n, 1.5, 2, 0.25, 3,
                           1.0, BLOCK=1024))


@requires_gpu
def test_the_projects_decorated_kernels_match_triton():
    """tests/kernels' autotuned and heuristic kernels (configs between parameters, pruning, a
    heuristic num_warps, a string constexpr) launched both ways."""
    g = torch.Generator(device="cuda").manual_seed(7)
    for n in (98, 4096, 5001):  # python_heuristic's BLOCK, (n % 7 + 1) * 64, is a power of two for these
        x = torch.randn(n, device="cuda", generator=g)
        grid = lambda META: (triton.cdiv(n, META["BLOCK"]),)  # noqa: E731
        assert_same_bits(*both(decorated_kernels.scale_tuned, grid, x, torch.zeros_like(x), n, 1.5))
        assert_same_bits(*both(decorated_kernels.python_heuristic, grid, x, torch.zeros_like(x), n))
        assert_same_bits(*both(decorated_kernels.pruned, grid, x, torch.zeros_like(x), n))
        # Triton's heuristics zip positional arguments with every parameter name, BLOCK included, so
        # the parameters after BLOCK go by keyword for Triton's launch.
        assert_same_bits(*both(decorated_kernels.block_between, grid, x, out_ptr=torch.zeros_like(x), n=n))
        assert_same_bits(*both(decorated_kernels.activated, grid, x, torch.zeros_like(x), n, "relu"))
        # Tuned over num_warps alone, reset_to_zero: tensors are read whole for it (Note [Tensors
        # read lean]); atomics sum in any order.
        theirs, ours = both(decorated_kernels.accumulate_over_warps, (triton.cdiv(n, 256),), x,
                            torch.zeros(1, device="cuda"), n, BLOCK=256)
        torch.testing.assert_close(ours[1], x.sum().reshape(1), rtol=1e-4, atol=1e-3)
        torch.testing.assert_close(theirs[1], ours[1], rtol=1e-4, atol=1e-3)
    rows = torch.randn(64, 3000, device="cuda", generator=g, dtype=torch.float16)
    assert_same_bits(*both(decorated_kernels.row_softmax, (64,), rows, torch.zeros_like(rows), 3000, rows.stride(0)))
    a = torch.randn(300, 512, device="cuda", generator=g, dtype=torch.float16)
    b = torch.randn(512, 200, device="cuda", generator=g, dtype=torch.float16)
    theirs, ours = both(gpu_decorated.matmul_kernel,
                        lambda META: (triton.cdiv(300, META["BLOCK_M"]) * triton.cdiv(200, META["BLOCK_N"]),),
                        a, b, torch.zeros(300, 200, device="cuda", dtype=torch.float16), 300, 200, 512,
                        a.stride(0), a.stride(1), b.stride(0), b.stride(1), 200, 1)
    # Each side tunes for itself and may keep another config: the products agree to fp16 rounding.
    torch.testing.assert_close(ours[2], (a.float() @ b.float()).half(), rtol=2e-2, atol=2e-2)
    torch.testing.assert_close(theirs[2], ours[2], rtol=2e-2, atol=2e-2)


@requires_gpu
def test_tuples_strings_and_integer_kinds_match_triton():
    x = torch.arange(4 * 64, device="cuda", dtype=torch.float16)
    for flip in (False, True):
        assert_same_bits(*both(kernels.strided_pair, (4,), x, torch.zeros_like(x), (4, 64), FLIP=flip, BLOCK=64))
    i = torch.arange(1000, device="cuda", dtype=torch.int32)
    assert_same_bits(*both(kernels.add, (4,), i, i, torch.zeros_like(i), 1000, BLOCK=256))


@requires_gpu
def test_tensor_descriptors_match_triton():
    from triton.tools.tensor_descriptor import TensorDescriptor
    x = torch.randn(256, 128, device="cuda", dtype=torch.float16)
    out_theirs, out_ours = torch.zeros_like(x), torch.zeros_like(x)
    kernels.copy_tiles[(4, 2)](TensorDescriptor.from_tensor(x, [64, 64]), TensorDescriptor.from_tensor(out_theirs, [64, 64]),
                               64, 64)
    triton_jit.jit(kernels.copy_tiles)[(4, 2)](TensorDescriptor.from_tensor(x, [64, 64]),
                                               TensorDescriptor.from_tensor(out_ours, [64, 64]), 64, 64)
    torch.cuda.synchronize()
    assert torch.equal(out_ours, x) and torch.equal(out_theirs, out_ours)


@requires_gpu
def test_grid_meta_reads_arguments_decorator_values_and_options():
    seen = {}

    def grid(meta):
        seen.update(n=meta["n"], BLOCK=meta["BLOCK"], num_warps=meta["num_warps"], scale=meta.get("scale"),
                    missing=meta.get("nope", "default"), has_n="n" in meta, keys=len(list(meta)))
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    x = torch.randn(10000, device="cuda")
    out = torch.zeros_like(x)
    triton_jit.jit(kernels.scaled_copy)[grid](x, out, 10000, 2.0)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 2.0)
    assert seen == dict(n=10000, BLOCK=256, num_warps=4, scale=2.0, missing="default", has_n=True, keys=8), seen
    nested = torch.zeros_like(x)

    def launching_grid(meta):  # a grid that launches the same kernel again, in the middle of a launch
        triton_jit.jit(kernels.scaled_copy)[lambda inner: (triton.cdiv(10000, inner["BLOCK"]),)](x, nested, 10000, 3.0)
        return (triton.cdiv(meta["n"], meta["BLOCK"]),)

    triton_jit.jit(kernels.scaled_copy)[launching_grid](x, out, 10000, 4.0)
    torch.cuda.synchronize()
    assert torch.equal(out, x * 4.0) and torch.equal(nested, x * 3.0)
    kept = []
    triton_jit.jit(kernels.scaled_copy)[lambda meta: kept.append(meta) or (1,)](x, out, 64, 1.0)
    with pytest.raises(RuntimeError, match="valid only while the grid is called"):
        kept[0]["n"]
    with pytest.raises(ZeroDivisionError):
        triton_jit.jit(kernels.scaled_copy)[lambda meta: (1 // 0,)](x, out, 64, 1.0)


@requires_gpu
def test_hits_compile_nothing_and_run_on_the_current_stream():
    k = triton_jit.jit(kernels.add)
    x = torch.randn(1 << 20, device="cuda")
    out = torch.zeros_like(x)
    k[(1024,)](x, x, out, 1 << 20, BLOCK=1024)
    compiles = k.stats()["compiles"]
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        torch.cuda._sleep(200_000_000)  # holds the side stream: a launch sent elsewhere would run now
        for _ in range(100):
            k[(1024,)](x, out, out, 1 << 20, BLOCK=1024)
    # Read on the default stream while the side stream sleeps: launches sent to the default stream
    # would have run already.
    assert torch.equal(out.cpu(), (x + x).cpu())
    side.synchronize()
    torch.testing.assert_close(out, x * 102, rtol=1e-5, atol=1e-4)  # x + x, then + x a hundred times
    assert k.stats()["compiles"] == compiles
    # Nothing kept per call, beyond what a launch of torch's own keeps: none in a plain run, about
    # four Python blocks per kernel launch of anyone's under compute-sanitizer.
    blocks = sys.getallocatedblocks()
    for _ in range(1000):
        torch.add(x, x, out=out)
    torch_kept = sys.getallocatedblocks() - blocks
    blocks = sys.getallocatedblocks()
    for _ in range(1000):
        k[(1024,)](x, x, out, 1 << 20, BLOCK=1024)
    assert sys.getallocatedblocks() - blocks < torch_kept + 20


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                    reason="needs two GPUs: multi-GPU launches run on a two-GPU machine")
def test_launches_follow_the_tensors_device_and_its_current_stream():
    """One kernel object launched on every GPU, each while another GPU is the current device: the
    variant is loaded per device and each launch goes to its tensors' device's current stream."""
    k = triton_jit.jit(kernels.tuned_add)
    grid = lambda META: (triton.cdiv(30000, META["BLOCK"]),)  # noqa: E731
    results = []
    for device in range(torch.cuda.device_count()):
        x = torch.randn(30000, device=f"cuda:{device}")
        y = torch.randn(30000, device=f"cuda:{device}")
        out = torch.zeros_like(x)
        side = torch.cuda.Stream(device=device)
        with torch.cuda.stream(side), torch.cuda.device((device + 1) % torch.cuda.device_count()):
            with torch.cuda.device(device):
                torch.cuda._sleep(200_000_000)  # on the side stream: holds the launch that follows
            k[grid](x, y, out, 30000)
        assert torch.equal(out.cpu(), torch.zeros(30000)), "the launch did not wait for the side stream"
        side.synchronize()
        results.append((out, x + y))
    for out, expected in results:
        assert torch.equal(out, expected)
    theirs = torch.zeros_like(results[-1][0])
    kernels.tuned_add[grid](results[-1][1], torch.zeros_like(theirs), theirs, 30000)
    torch.cuda.synchronize()
    assert torch.equal(theirs, results[-1][1])


@requires_gpu
def test_prepared_launches_capture_in_a_cuda_graph():
    k = triton_jit.jit(kernels.tuned_add)
    x = torch.randn(5000, device="cuda")
    y = torch.randn(5000, device="cuda")
    out = torch.zeros_like(x)
    grid = lambda META: (triton.cdiv(5000, META["BLOCK"]),)  # noqa: E731
    k.prepare(x, y, out, 5000, grid=grid)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        k[grid](x, y, out, 5000)
    x.copy_(torch.randn(5000, device="cuda"))
    graph.replay()
    torch.cuda.synchronize()
    assert torch.equal(out, x + y)


@requires_gpu
def test_torch_compile_traces_a_custom_op_and_breaks_the_graph_on_a_bare_launch():
    k = triton_jit.jit(kernels.add)

    @torch.library.custom_op("triton_jit_test::add", mutates_args=())
    def add_op(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        k[(triton.cdiv(x.numel(), 1024),)](x, y, out, x.numel(), BLOCK=1024)
        return out

    @add_op.register_fake
    def _(x, y):
        return torch.empty_like(x)

    x = torch.randn(3000, device="cuda")
    traced = torch.compile(lambda a, b: add_op(a, b) * 2, fullgraph=True)
    assert torch.equal(traced(x, x), (x + x) * 2)

    def bare(a, b):
        out = torch.empty_like(a)
        k[(triton.cdiv(a.numel(), 1024),)](a, b, out, a.numel(), BLOCK=1024)
        return out * 2

    explained = torch._dynamo.explain(bare)(x, x)
    print("graph breaks:", explained.graph_break_count, [str(r.reason)[:300] for r in explained.break_reasons])
    assert explained.graph_break_count >= 1
    assert torch.equal(torch.compile(bare)(x, x), (x + x) * 2)
