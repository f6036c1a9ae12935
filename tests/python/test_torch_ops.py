"""The operator library from a Python host: torch.ops.load_library, Meta shapes (CPU), and on
a GPU the CUDA kernels against PyTorch, compiled with this process's own interpreter."""
import os

import pytest
import torch

from conftest import BUILD, requires_gpu

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

OPS_LIBRARY = os.path.join(BUILD, "lib", "libtriton_jit_ops.so")


@pytest.fixture(scope="module", autouse=True)
def ops():
    torch.ops.load_library(OPS_LIBRARY)
    return torch.ops.triton_jit


def libpython_mappings():
    with open("/proc/self/maps") as maps:
        return {line.split()[-1] for line in maps if "libpython" in line.split()[-1]}


def test_meta_kernels_give_torch_shapes_and_dtypes(ops):
    a = torch.empty(4, 1, 8, device="meta", dtype=torch.float16)
    b = torch.empty(3, 1, device="meta", dtype=torch.float32)
    out = ops.add.Tensor(a, b)
    assert out.shape == torch.add(a, b).shape and out.dtype == torch.float32
    assert ops.add.Scalar(a, 2).dtype == torch.float16
    assert ops.sum.dim_IntList(a, [2], True).shape == (4, 1, 1)
    assert ops.sum.dim_IntList(a, [-1]).shape == (4, 1)


def test_cpu_tensors_are_refused_by_the_dispatcher(ops):
    with pytest.raises(NotImplementedError):
        ops.add.Tensor(torch.ones(2), torch.ones(2))


def test_warmup_compiles_the_linear_layers_matmuls_through_the_runtime_without_a_gpu(ops, tmp_path, monkeypatch):
    """The decode-step matmul and the two TMA matmuls (descriptors built on the device, global
    scratch) go through the compile script like every other kernel: every config kept of each."""
    monkeypatch.setenv("TRITON_JIT_CACHE_DIR", str(tmp_path))
    made = ops.warmup(torch.bfloat16)
    assert any(line.startswith("matmul_skinny_kernel ") for line in made), made
    assert any(line.startswith("matmul_tma_kernel ") and "cuda:90" in line for line in made), made
    assert any(line.startswith("matmul_wave_kernel ") and "cuda:90" in line for line in made), made


@requires_gpu
def test_cuda_ops_match_torch_and_compile_in_this_interpreter(ops):
    before = libpython_mappings()
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        tol = 1e-5 if dtype == torch.float32 else 1e-2
        a = torch.randn(300, 700, device="cuda", dtype=dtype)
        b = torch.randn(700, device="cuda", dtype=dtype)
        torch.testing.assert_close(ops.add.Tensor(a, b), torch.add(a, b), rtol=tol, atol=tol)
        torch.testing.assert_close(ops.add.Scalar(a, 1.5), torch.add(a, 1.5), rtol=tol, atol=tol)
        torch.testing.assert_close(ops.sum.dim_IntList(a, [1]), a.sum(1), rtol=tol * 10, atol=tol * 10)
        torch.testing.assert_close(ops.sum.dim_IntList(a, [0], True), a.sum(0, keepdim=True), rtol=tol * 10, atol=tol * 10)
    after = libpython_mappings()
    assert after == before, f"a second libpython was loaded: {after - before}"
    assert len(after) <= 1
