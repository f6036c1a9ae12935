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
    from triton.tools.tensor_descriptor import TensorDescriptor
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
    padding = "nan" if base.dtype.is_floating_point and rng.random() < 0.3 else "zero"
    descriptor = TensorDescriptor(base, shape, strides, block, padding)
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

    fake = types.SimpleNamespace(utils=types.SimpleNamespace(fill_tma_descriptor=fill_tma_descriptor))
    previous = triton.runtime.driver._active  # none on a machine without a GPU
    triton.runtime.driver.set_active(fake)
    try:
        return make_tensordesc_arg(descriptor, meta), captured.get("args")
    finally:
        triton.runtime.driver._active = previous


@pytest.mark.parametrize("target", ["cuda:90", "cuda:80"])
def test_descriptor_parameters_match_tritons_launcher(target):
    if not os.path.exists(FAKE_DRIVER):
        pytest.fail(f"the stand-in driver is not built: {FAKE_DRIVER}")
    os.environ["TRITON_JIT_CUDA_DRIVER"] = FAKE_DRIVER
    fake = ctypes.CDLL(FAKE_DRIVER)
    fake.fake_cuda_last_tensor_map.restype = FakeTensorMap
    from triton.tools.tensor_descriptor import TensorDescriptor
    describe_json = reference.describe(KERNEL_FILE, "copy_tiles")
    for dtype, padding in (("float16", "zero"), ("bfloat16", "nan"), ("float32", "zero"), ("float8_e5m2", "zero")):
        torch_dtype = getattr(torch, dtype)
        x = torch.zeros(256 * 256, dtype=torch_dtype)
        a = TensorDescriptor(x, [200, 128], [256, 1], [64, 32])
        b = TensorDescriptor(x[1024:], [100, 256], [256, 1], [64, 32], padding)
        cpp = [("tensordesc", (dtype, x.data_ptr(), [200, 128], [256, 1], [64, 32], False)),
               ("tensordesc", (dtype, x[1024:].data_ptr(), [100, 256], [256, 1], [64, 32], padding == "nan")),
               ("int64", 200), ("int64", 128), ("int64", 64), ("int64", 32)]
        request = json.loads(triton_jit_parity.encode(describe_json, cpp)[0])
        request["target"] = target
        binary, metadata_json, _ = triton_jit_compile.compile(KERNEL_FILE, "", "copy_tiles", [], json.dumps(request))
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
            # The last map encoded is b's: what Triton's fill_tma_descriptor is asked, in the driver's order.
            _, (base, swizzle, elem_size, elem_type, block, shape, strides, nan) = tritons_expansion(b, metas[1])
            m = fake.fake_cuda_last_tensor_map()
            assert m.base == base and m.rank == len(shape)
            assert list(m.dims[:m.rank]) == list(reversed(shape))
            assert list(m.box[:m.rank]) == list(reversed(block))
            assert list(m.strides[:m.rank - 1]) == [elem_size * s for s in reversed(strides[:-1])]
            assert (m.elem_type, m.swizzle, m.fill) == (elem_type, swizzle, nan)
            assert (m.l2_promotion, m.interleave) == (2, 0)  # L2_128B, no interleave, as Triton's driver.c
