"""Parity of host-side TMA descriptor arguments with Triton's own runtime: the variant's type
("tensordesc<fp16[64, 32]>") against Triton's specializer, and the kernel parameters a descriptor
becomes against Triton's launcher (triton.backends.nvidia.driver.make_tensordesc_arg), for a
kernel compiled with TMA (sm_90) and without (sm_80). On CPU: the tensor map is encoded by the
stand-in driver, which records what it was asked.
"""
import ctypes
import json
import os
import random
import types

import pytest
import torch

import triton_jit_compile
import triton_reference as reference
import triton_jit_parity
from conftest import BUILD, KERNELS

KERNEL_FILE = os.path.join(KERNELS, "tma_kernels.py")

try:
    import dataclasses
    from triton.tools.tensor_descriptor import TensorDescriptor
    FIELDS = {f.name for f in dataclasses.fields(TensorDescriptor)}
except ImportError:  # Triton 3.3 has no host-side descriptors
    pytestmark = pytest.mark.skip(reason="this Triton has no triton.tools.tensor_descriptor (added in 3.4)")
    FIELDS = set()


def make_descriptor(base, shape, strides, block, padding="zero", tf32=False):
    """A TensorDescriptor with the options this Triton has (padding from 3.5, tf32 from 3.8)."""
    options = {}
    if "padding" in FIELDS:
        options["padding"] = padding
    if "round_f32_to_tf32" in FIELDS:
        options["round_f32_to_tf32"] = tf32
    return TensorDescriptor(base, shape, strides, block, **options)
FAKE_DRIVER = os.path.join(BUILD, "tests", "fake_cuda", "libcuda.so.1")

DTYPES = ["float16", "bfloat16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8",
          "float8_e4m3fn", "float8_e5m2"]


class FakeTensorMap(ctypes.Structure):
    _fields_ = [("elem_type", ctypes.c_int), ("rank", ctypes.c_uint), ("base", ctypes.c_uint64),
                ("dims", ctypes.c_uint64 * 5), ("strides", ctypes.c_uint64 * 4), ("box", ctypes.c_uint * 5),
                ("element_strides", ctypes.c_uint * 5), ("interleave", ctypes.c_int), ("swizzle", ctypes.c_int),
                ("l2_promotion", ctypes.c_int), ("fill", ctypes.c_int), ("encoded", ctypes.c_uint64)]


def random_descriptor(rng):
    """A TensorDescriptor Triton accepts: 16-byte aligned base and strides, power-of-two blocks."""
    dtype = rng.choice(DTYPES)
    element = torch.empty(0, dtype=getattr(torch, dtype)).element_size()
    rank = rng.randint(1, 3)
    block = [rng.choice([1, 2, 8, 16, 32, 64, 128]) for _ in range(rank)]
    shape = [rng.choice([1, 7, 16, 100, 128, 1000]) for _ in range(rank)]
    inner = max(shape[-1], 16 // element)
    inner = -(-inner * element // 16) * 16 // element  # rows padded to 16 bytes
    strides = [1] * rank
    for k in range(rank - 2, -1, -1):
        strides[k] = (inner if k == rank - 2 else strides[k + 1] * shape[k + 1])
    numel = max(s * d for s, d in zip(strides, shape))
    base = torch.zeros(numel + 64, dtype=getattr(torch, dtype))
    padding = "nan" if "padding" in FIELDS and base.dtype.is_floating_point and rng.random() < 0.3 else "zero"
    descriptor = make_descriptor(base, shape, strides, block, padding)
    cpp = ("tensordesc", (dtype, base.data_ptr(), shape, strides, block, padding == "nan"))
    return descriptor, cpp, base


def test_descriptor_types_match_tritons_specialization():
    describe_json = reference.describe(KERNEL_FILE, "copy_tiles")
    rng = random.Random("tensordesc-types")
    for _ in range(60):
        a, a_cpp, _keep_a = random_descriptor(rng)
        b, b_cpp, _keep_b = random_descriptor(rng)
        m, n = rng.choice([(128, 64), (1, 16), (1000, 7)])
        expected = reference.reference_specialization(KERNEL_FILE, "copy_tiles", [a, b, m, n, 64, 32])
        request = json.loads(triton_jit_parity.encode(describe_json, [a_cpp, b_cpp, ("int64", m), ("int64", n),
                                                                      ("int64", 64), ("int64", 32)])[0])
        params = json.loads(describe_json)["params"]
        assert {p["name"]: t for p, t in zip(params, request["signature"])} == expected[0], (a, b)
        assert sorted(request["attrs"]) == sorted(",".join(map(str, k)) for k in expected[2]), (a, b)


def tritons_expansion(descriptor, meta):
    """What Triton's launcher passes for one descriptor, with its tensor map request captured."""
    import triton
    from triton.backends.nvidia.driver import make_tensordesc_arg
    captured = {}

    def fill_tma_descriptor(*args):
        captured["args"] = args
        return "map"

    class Map:  # Triton 3.4 fills a TmaDescKernelParam; the values it is filled with are what count
        def fill_(self, *args):
            captured["args"] = args

    utils = types.SimpleNamespace(fill_tma_descriptor=fill_tma_descriptor, fill_tma_descriptor_tiled=fill_tma_descriptor,
                                  fill_1d_tma_descriptor=fill_tma_descriptor, fill_2d_tma_descriptor=fill_tma_descriptor)
    fake = types.SimpleNamespace(utils=utils)
    previous = dict(vars(triton.runtime.driver))  # its active driver: none on a machine without a GPU
    triton.runtime.driver.set_active(fake)
    import inspect
    extra = [None] * (len(inspect.signature(make_tensordesc_arg).parameters) - 2)
    try:
        values = make_tensordesc_arg(descriptor, meta, *extra)
        return ["map" if i == 0 and meta is not None else v for i, v in enumerate(values)], captured.get("args")
    finally:
        vars(triton.runtime.driver).update(previous)


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80"])
def test_descriptor_parameters_match_tritons_launcher(target, monkeypatch):
    if not os.path.exists(FAKE_DRIVER):
        pytest.fail(f"the stand-in driver is not built: {FAKE_DRIVER}")
    # Read once, by the parity module's first driver call; restored for the tests after this one
    # (a demo started with it would take the stand-in for a GPU).
    monkeypatch.setenv("TRITON_JIT_CUDA_DRIVER", FAKE_DRIVER)
    fake = ctypes.CDLL(FAKE_DRIVER)
    fake.fake_cuda_last_tensor_map.restype = FakeTensorMap
    describe_json = reference.describe(KERNEL_FILE, "copy_tiles")
    cases = [("float16", "zero", False), ("bfloat16", "nan", False), ("float32", "zero", False),
             ("float32", "nan", True), ("float8_e5m2", "zero", False)]
    for dtype, padding, tf32 in cases:
        if (padding == "nan" and "padding" not in FIELDS) or (tf32 and "round_f32_to_tf32" not in FIELDS):
            continue  # an option this Triton's TensorDescriptor does not have
        torch_dtype = getattr(torch, dtype)
        x = torch.zeros(256 * 256, dtype=torch_dtype)
        a = make_descriptor(x, [200, 128], [256, 1], [64, 32])
        b = make_descriptor(x[1024:], [100, 256], [256, 1], [64, 32], padding, tf32)
        cpp = [("tensordesc", (dtype, x.data_ptr(), [200, 128], [256, 1], [64, 32], False, False)),
               ("tensordesc", (dtype, x[1024:].data_ptr(), [100, 256], [256, 1], [64, 32], padding == "nan", tf32)),
               ("int64", 200), ("int64", 128), ("int64", 64), ("int64", 32)]
        request = json.loads(triton_jit_parity.encode(describe_json, cpp)[0])
        request["target"] = target
        binary, metadata_json, _, _ = triton_jit_compile.compile(KERNEL_FILE, "", "copy_tiles", [], json.dumps(request))
        metas = json.loads(metadata_json).get("tensordesc_meta") or [None, None]
        assert (metas[0] is not None) == (target == "cuda:90"), metas
        ours, expected_count = triton_jit_parity.expand(describe_json, cpp, metadata_json, binary, target)
        assert len(ours) == expected_count
        theirs = []
        for descriptor, meta in ((a, metas[0]), (b, metas[1])):
            values, fill = tritons_expansion(descriptor, meta)
            theirs += values
        theirs += [200, 128]  # M, N
        assert len(ours) == len(theirs), (ours, theirs)
        for (kind, got), want in zip(ours, theirs):
            if want == "map":
                assert kind == "map"
                continue
            if isinstance(want, torch.Tensor):
                want = want.data_ptr()
            assert kind == "bits" and got & 0xFFFFFFFF == int(want) & 0xFFFFFFFF, (got, want, dtype, target)
        if target == "cuda:90":
            # The last map encoded is b's: what Triton's fill function is asked, in the driver's order.
            _, asked = tritons_expansion(b, metas[1])
            if "padding" not in FIELDS:
                asked = asked[1:]  # Triton 3.4 fills a host buffer first named by its address
            base, swizzle, elem_size, elem_type, block, shape, strides = asked[:7]
            nan = asked[7] if len(asked) > 7 else 0
            m = fake.fake_cuda_last_tensor_map()
            assert m.base == base and m.rank == len(shape)
            assert list(m.dims[:m.rank]) == list(reversed(shape))
            assert list(m.box[:m.rank]) == list(reversed(block))
            assert list(m.strides[:m.rank - 1]) == [elem_size * s for s in reversed(strides[:-1])]
            assert (m.elem_type, m.swizzle, m.fill) == (elem_type, swizzle, nan), (dtype, padding, tf32)
            assert (m.l2_promotion, m.interleave) == (2, 0)  # L2_128B, no interleave, as Triton's driver.c
