"""The operator library against ATen. On CPU (CI): every op's Meta kernel gives ATen's shapes,
dtypes and strides, torch.library.opcheck passes, and torch.compile(dynamic=True) and torch.export
keep a dynamic batch dim symbolic. On the GPU: every op, dtype and input kind matches ATen
(assert_close's default tolerances), or raises the kind of error ATen raises; opcheck with CUDA
tensors; a compiled model against eager; 64-bit indexing; ATen stand-ins."""
import os
import zlib

import pytest
import torch
import torch._dynamo.testing

import ops_cases
from conftest import BUILD, requires_gpu

OPS_LIBRARY = os.path.join(BUILD, "lib", "libtriton_jit_ops.so")
PARAMS = ops_cases.parameters()
IDS = ops_cases.distinct_ids(PARAMS)


@pytest.fixture(scope="module", autouse=True)
def library():
    torch.ops.load_library(OPS_LIBRARY)


def run(fn, args, kwargs):
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 - the error is what is compared
        return None, e


def tensors(result):
    return list(result) if isinstance(result, (tuple, list)) else [result]


def same_layout(result, reference, strides=True):
    for r, e in zip(tensors(result), tensors(reference)):
        assert r.shape == e.shape, f"shape {tuple(r.shape)} != ATen's {tuple(e.shape)}"
        assert r.dtype == e.dtype, f"dtype {r.dtype} != ATen's {e.dtype}"
        if strides and r.numel() > 1:
            assert r.stride() == e.stride(), f"strides {r.stride()} != ATen's {e.stride()}"


def same_error(error, expected):
    assert error is not None, f"ATen raised {type(expected).__name__}: {expected}; ours did not"
    assert isinstance(error, type(expected)) or isinstance(expected, type(error)), (
        f"ours raised {type(error).__name__}: {error}\nATen raised {type(expected).__name__}: {expected}")


# ---- CPU: Meta kernels, opcheck, dynamic shapes ---------------------------------------------------------


@pytest.mark.parametrize("case, kind, dtype", [p[:3] for p in PARAMS], ids=IDS)
def test_meta_matches_aten(case, kind, dtype):
    args, kwargs = case.build(kind, dtype, "meta")
    expected, expected_error = run(case.reference, args, kwargs)
    result, error = run(case.op, args, kwargs)
    if error is not None and expected_error is None:
        # ATen checks some dtypes and arguments only in its CUDA kernels; ours already on Meta (the
        # GPU test holds the error to ATen's CUDA one).
        assert isinstance(error, (NotImplementedError, RuntimeError)), f"{type(error).__name__}: {error}"
        return
    if expected_error is not None:
        # ATen's Meta kernels are partly Python references, whose error types can differ from its
        # CUDA kernels'; the GPU test holds ours to the CUDA ones.
        assert error is not None, f"ATen raised {type(expected_error).__name__}: {expected_error}; ours did not"
        return
    same_layout(result, expected, strides=case.meta_strides)


def opcheck_params():
    chosen = {}
    for case, kind, dtype, label in PARAMS:
        key = (case.name, repr(case.build))
        if key not in chosen and kind not in ("bad_shape", "bad_sizes", "k_too_big", "float_indices", "int_condition",
                                              "float_alpha", "cpu_scalar", "empty", "empty_k"):
            if dtype in (torch.float32, torch.int32) or case.dtypes[0] == dtype:
                chosen[key] = (case, kind, dtype, label)
    return list(chosen.values())


OPCHECK = opcheck_params()


class Call(torch.nn.Module):
    """op(*args, **kwargs) with the tensor arguments (and lists of them) as the module's inputs."""

    def __init__(self, op, args, kwargs):
        super().__init__()
        self.op, self.args, self.kwargs = op, args, kwargs
        self.slots = [i for i, a in enumerate(args) if isinstance(a, (torch.Tensor, list)) and not (
            isinstance(a, list) and not all(isinstance(t, torch.Tensor) for t in a))]

    def inputs(self):
        return tuple(self.args[i] for i in self.slots)

    def forward(self, *tensors):
        args = list(self.args)
        for i, t in zip(self.slots, tensors):
            args[i] = t
        return self.op(*args, **self.kwargs)


@pytest.mark.parametrize("case, kind, dtype", [p[:3] for p in OPCHECK], ids=[p[3] for p in OPCHECK])
def test_meta_keeps_sizes_symbolic(case, kind, dtype):
    """torch.export with every dim dynamic (Dim.AUTO): the first input's leading dim must stay a
    symbol through our Meta kernel, as it does through ATen's."""
    args, kwargs = case.build(kind, dtype, "meta")
    call = Call(case.op, args, kwargs)
    inputs = call.inputs()
    first = inputs[0][0] if isinstance(inputs[0], list) else inputs[0]
    if first.dim() == 0 or first.shape[0] <= 1:
        pytest.skip("no leading dim to keep symbolic")
    auto = torch.export.Dim.AUTO
    dims = [[{d: auto for d in range(t.dim())} for t in a] if isinstance(a, list) else {d: auto for d in range(a.dim())}
            for a in inputs]
    program = torch.export.export(call, inputs, dynamic_shapes={"tensors": tuple(dims)})
    placeholder = next(n for n in program.graph.nodes if n.op == "placeholder")
    assert isinstance(placeholder.meta["val"].shape[0], torch.SymInt), (
        f"{case.name}: the leading dim was specialised to {placeholder.meta['val'].shape[0]}")


def block(x, w, wmat, bias, cos, sin):
    """A small decoder step of our ops, for the tracing tests."""
    h = torch.ops.triton_jit.rms_norm(x, [x.shape[-1]], w, 1e-6)
    h = torch.ops.triton_jit.addmm(bias, h, wmat)
    q = torch.ops.triton_jit.rotary_embedding(h.view(1, x.shape[0], 4, 16), cos, sin)
    s = torch.ops.triton_jit.softmax.int(q.view(x.shape[0], 64), -1)
    g = torch.ops.triton_jit.silu_and_mul(torch.ops.triton_jit.cat([s, h], -1))
    out = torch.ops.triton_jit.add.Tensor(x, g)
    return out, torch.ops.triton_jit.sum.dim_IntList(out, [0]), torch.ops.triton_jit.topk(out, 3)[1]


def block_inputs(batch, device="meta", dtype=torch.float32):
    make = ops_cases.make
    return (make((batch, 64), dtype, device), make((64,), dtype, device), make((64, 64), dtype, device, low=-0.1, high=0.1),
            make((64,), dtype, device), make((64, 8), torch.float32, device), make((64, 8), torch.float32, device))


def test_compile_with_dynamic_shapes_builds_one_graph_for_every_batch():
    counter = torch._dynamo.testing.CompileCounterWithBackend("aot_eager")
    compiled = torch.compile(block, backend=counter, dynamic=True, fullgraph=True)
    torch._dynamo.reset()
    for batch in (3, 5, 8, 13):
        out, total, top = compiled(*block_inputs(batch))
        assert out.shape == (batch, 64) and total.shape == (64,) and top.shape == (batch, 3)
    assert counter.frame_count == 1, f"{counter.frame_count} graphs for 4 batch sizes"


def test_export_keeps_a_dynamic_batch_dim():
    class Block(torch.nn.Module):
        def forward(self, x, w, wmat, bias, cos, sin):
            return block(x, w, wmat, bias, cos, sin)

    batch = torch.export.Dim("batch", min=2, max=4096)
    dynamic = ({0: batch}, None, None, None, None, None)
    program = torch.export.export(Block(), block_inputs(6), dynamic_shapes=dynamic)
    placeholder = next(n for n in program.graph.nodes if n.op == "placeholder" and n.name == "x")
    size = placeholder.meta["val"].shape[0]
    assert isinstance(size, torch.SymInt), f"the batch dim was specialised to {size}"
    outputs = [n for n in program.graph.nodes if n.op == "output"][0].args[0]
    assert isinstance(outputs[0].meta["val"].shape[0], torch.SymInt)


def test_bad_dims_are_aten_errors():
    x = torch.empty(3, 4, device="meta")
    with pytest.raises(IndexError, match="Dimension out of range"):
        torch.ops.triton_jit.sum.dim_IntList(x, [3])
    with pytest.raises(IndexError):
        torch.ops.triton_jit.softmax.int(x, 5)
    with pytest.raises(ValueError, match="expected a non-empty list"):
        torch.ops.triton_jit.cat([], 0)


def test_every_op_has_a_meta_and_a_cuda_kernel():
    names = {c.name for c in ops_cases.cases()} | {"_softmax", "_log_softmax"}
    for name in sorted(names):
        op = ops_cases.ours(name)
        schema = op._schema.name + ("." + op._schema.overload_name if op._schema.overload_name else "")
        for key in ("CUDA", "Meta"):
            assert torch._C._dispatch_has_kernel_for_dispatch_key(schema, key), f"{schema} has no {key} kernel"
    assert len({n.partition(".")[0] for n in names}) >= 30


# ---- GPU: accuracy and errors against ATen --------------------------------------------------------------


@requires_gpu
@pytest.mark.parametrize("case, kind, dtype", [p[:3] for p in PARAMS], ids=IDS)
def test_cuda_matches_aten(case, kind, dtype):
    torch.manual_seed(zlib.crc32(kind.encode()) % 1000)  # str hashes differ between processes
    args, kwargs = case.build(kind, dtype, "cuda")
    expected, expected_error = run(case.reference, args, kwargs)
    result, error = run(case.op, args, kwargs)
    if expected_error is not None:
        same_error(error, expected_error)
        return
    assert error is None, f"ours raised {type(error).__name__}: {error}"
    same_layout(result, expected, strides=isinstance(case.reference, torch._ops.OpOverload))
    if case.check is not None:
        case.check(result, expected, args)
        return
    for position, (r, e) in enumerate(zip(tensors(result), tensors(expected))):
        try:
            torch.testing.assert_close(r, e, equal_nan=True, **ops_cases.isclose_tolerance(case, dtype))
        except AssertionError:
            if not (case.reorders_sums and r.is_floating_point()):
                raise
            exact = tensors(case.reference(*to_float64(args), **kwargs))[position]
            try:
                torch.testing.assert_close(r, exact.to(r.dtype), equal_nan=True)
            except AssertionError:
                # A long sum's rounding error grows with its length, and a result near zero after
                # cancellation is beyond any relative tolerance: ours must then be no further from
                # the exact result than ATen's own (twice, plus the dtype's tolerance).
                rtol, atol = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5)}.get(r.dtype, (1.3e-6, 1e-5))
                ours_error = (r.double() - exact).abs()
                aten_error = (e.double() - exact).abs()
                allowed = 2 * aten_error + atol + rtol * exact.abs()
                assert bool((ours_error <= allowed).all()), (
                    f"ours is {ours_error.max().item():.3g} from the exact sum, ATen {aten_error.max().item():.3g}")


def to_float64(args):
    return [a.double() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args]


@requires_gpu
@pytest.mark.parametrize("case, kind, dtype", [p[:3] for p in OPCHECK], ids=[p[3] for p in OPCHECK])
def test_opcheck_on_cuda(case, kind, dtype):
    args, kwargs = case.build(kind, dtype, "cuda")
    torch.library.opcheck(case.op, args, kwargs)


@requires_gpu
def test_compiled_model_matches_eager():
    torch.manual_seed(0)
    inputs = block_inputs(37, "cuda")
    eager = block(*inputs)
    compiled = torch.compile(block, fullgraph=True)(*inputs)
    for e, c in zip(eager, compiled):
        torch.testing.assert_close(c, e)


@requires_gpu
def test_cpu_and_cuda_tensors_mixed_is_aten_error():
    x = torch.ones(3, device="cuda")
    y = torch.ones(3)
    with pytest.raises(RuntimeError, match="same device"):
        torch.ops.triton_jit.add.Tensor(x, y)
    with pytest.raises(RuntimeError):
        torch.ops.aten.add.Tensor(x, y)


@requires_gpu
def test_add_and_sum_past_2_31_elements():
    n = (1 << 31) + 4099  # 64-bit offsets in the kernels
    x = torch.randn(n, device="cuda", dtype=torch.float16)
    y = torch.randn(1, device="cuda", dtype=torch.float16)
    out = torch.ops.triton_jit.add.Tensor(x, y)
    assert torch.equal(out[-4096:], (x[-4096:] + y)) and torch.equal(out[:4096], x[:4096] + y)
    del out
    rows = x[: 3 * (n // 3)].view(3, -1)
    torch.testing.assert_close(torch.ops.triton_jit.sum.dim_IntList(rows, [1]).float(),
                               rows.sum(1, dtype=torch.float32), rtol=1e-3, atol=1.0)
    assert torch.ops.triton_jit.argmax(x).item() == torch.argmax(x).item()


@requires_gpu
def test_aten_stand_ins_route_aten_calls_to_ours_until_disabled():
    ops = torch.ops.triton_jit
    assert "aten::mm" in ops.aten_stand_ins() and len(ops.aten_stand_ins()) >= 30
    a = torch.randn(64, 32, device="cuda")
    b = torch.randn(32, 16, device="cuda")

    def kernels():
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
            torch.mm(a, b)
            torch.ops.aten.add.Scalar(a, 1.0)  # torch.add(a, 1.0) is add.Tensor with a wrapped number
            torch.cuda.synchronize()
        return {e.name for e in prof.events()}

    assert not any("matmul_kernel" in k for k in kernels())
    ops.enable_aten(["aten::mm", "aten::add.Scalar"])
    ops.set_stand_in_routing(False)  # a float32 mm is a class cuBLAS runs faster: ours only with routing off
    try:
        assert set(ops.enabled_aten_stand_ins()) == {"aten::mm", "aten::add.Scalar"}
        # The first call tunes the autotuned matmul (dozens of launches); the profile is of a plain call.
        torch.mm(a, b)
        torch.cuda.synchronize()
        names = kernels()
        assert any("matmul_kernel" in k for k in names), sorted(names)
        assert any("binary_scalar_kernel" in k for k in names), sorted(names)
        torch.testing.assert_close(torch.mm(a, b), a.double().mm(b.double()).float(), rtol=1e-5, atol=1e-5)
    finally:
        ops.set_stand_in_routing(True)
        ops.disable_aten()
    assert not any("matmul_kernel" in k for k in kernels())
    with pytest.raises(RuntimeError, match="no stand-in for 'aten::conv2d'"):
        ops.enable_aten(["aten::conv2d"])


@requires_gpu
def test_a_stand_in_sends_the_shapes_where_aten_is_faster_back_to_aten():
    ops = torch.ops.triton_jit
    x = torch.randn(16, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(14336, 4096, device="cuda", dtype=torch.bfloat16) * 0.02
    expected = torch.nn.functional.linear(x, w)

    def counts():
        names, ours, aten = ops.stand_in_routes()
        return dict(zip(names, zip(ours, aten)))["aten::mm"]

    ops.enable_aten(["aten::mm"])
    try:
        before = counts()
        assert torch.equal(torch.nn.functional.linear(x, w), expected)  # cuBLAS's, bit for bit
        assert counts() == (before[0], before[1] + 1)
        ops.set_stand_in_routing(False)
        torch.testing.assert_close(torch.nn.functional.linear(x, w), expected, rtol=2e-2, atol=2e-2)
        assert counts() == (before[0] + 1, before[1] + 1)
    finally:
        ops.set_stand_in_routing(True)
        ops.disable_aten()
