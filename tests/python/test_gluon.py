"""@gluon.jit kernels through the runtime, as @triton.jit ones: compiled for sm_90 without a GPU
through Gluon's own source class (warp specialization, wgmma and TMA in the code), specialized as
Triton's binder specializes them (a host descriptor's shared-memory layout is part of the type),
parameters named like launch options, and on a GPU: the same bits as Triton's own launch, and the
Hopper GEMM of the operator library (operators/matmul/matmul_gluon.py) against torch."""
import os
import sys

import pytest
import torch
import triton

from conftest import BUILD, KERNELS, ROOT, requires_gpu

sys.path.insert(0, os.path.join(BUILD, "python"))
sys.path.insert(0, KERNELS)

gluon = pytest.importorskip("triton.experimental.gluon", reason="this Triton has no Gluon (3.5 and newer do)")
from triton.experimental.gluon import language as gl  # noqa: E402
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor  # noqa: E402

import triton_jit  # noqa: E402
import triton_jit_compile  # noqa: E402
import gluon_kernels  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "operators", "common"))  # gluon_layouts, beside them when built
sys.path.insert(0, os.path.join(ROOT, "operators", "matmul"))
sys.path.insert(0, os.path.join(ROOT, "operators", "attention"))
import matmul_gluon  # noqa: E402


@pytest.fixture(autouse=True)
def sm90_and_the_texts(monkeypatch):
    monkeypatch.setenv("TRITON_JIT_TARGET", "cuda:90")
    monkeypatch.setenv("TRITON_JIT_KEEP_IR", "1")


def descriptor(t, block):
    return TensorDescriptor(t, list(t.shape), list(t.stride()), block,
                            gl.NVMMASharedLayout.get_default_for(block, getattr(gl, str(t.dtype).split(".")[1])))


def test_a_host_descriptor_is_typed_with_its_layout_as_tritons_binder_types_it():
    from triton.compiler import make_backend
    from triton.runtime.jit import create_function_from_signature
    x = torch.empty(256, 64, dtype=torch.float16)
    d_in, d_out = descriptor(x, [64, 64]), descriptor(x, [64, 64])
    fn = gluon_kernels.copy_tile
    binder = create_function_from_signature(fn.signature, fn.params, make_backend(triton_jit_compile.gpu_target("cuda:90")))
    _, specialization, _ = binder(d_in, d_out)
    info = triton_jit.jit(fn).warmup(d_in, d_out, grid=None)
    assert info["signature"] == f"in_desc: {specialization[0][0]}, out_desc: {specialization[1][0]}", info["signature"]
    assert "NVMMASharedLayout(" in info["signature"]
    # Another layout is another variant.
    wide = TensorDescriptor(x, [256, 64], [64, 1], [64, 64], gl.NVMMASharedLayout(64, 16, rank=2))
    other = triton_jit.jit(fn).warmup(wide, wide, grid=None)["signature"]
    assert other != info["signature"] and "swizzle_byte_width=64" in other


def test_a_layout_passed_as_a_constexpr_reaches_the_compile():
    """Gluon's layouts name their classes bare in their reprs (`SliceLayout(dim=0,
    parent=BlockedLayout(...))`); the runtime names them through `gl.` to make them again, and the
    compile makes them from that text."""
    x, y = torch.empty(1000), torch.empty(1000, dtype=torch.float16)
    k = triton_jit.jit(gluon_kernels.convert_with_layout)
    flat = k.warmup(x, y, 1000, 512, gl.float16, gl.BlockedLayout([4], [32], [4], [0]), grid=None)
    assert "layout=gl.BlockedLayout(size_per_thread=[4], threads_per_warp=[32]" in flat["signature"], flat["signature"]
    sliced = gl.SliceLayout(0, gl.BlockedLayout([1, 4], [8, 4], [4, 1], [1, 0]))
    info = k.warmup(x, y, 1000, 512, gl.float16, sliced, grid=None)
    assert "layout=gl.SliceLayout(dim=0, parent=gl.BlockedLayout(" in info["signature"], info["signature"]
    default = k.warmup(x, y, 1000, 512, gl.float16, grid=None)  # the parameter's default, a layout too
    assert "layout=gl.BlockedLayout(size_per_thread=[1]" in default["signature"], default["signature"]


def test_a_parameter_named_like_a_launch_option_is_both():
    x = torch.empty(1024)
    k = triton_jit.jit(gluon_kernels.scale)
    info = k.warmup(x, x, 1024, 2.0, BLOCK=256, num_warps=8)
    assert info["num_warps"] == 8 and "num_warps=8" in info["signature"], info


def test_warp_specialization_compiles_with_the_warps_gluon_adds():
    x = torch.empty(1024)
    info = triton_jit.jit(gluon_kernels.specialized_add_one).warmup(x, x, 1024, BLOCK=128, num_warps=4)
    assert info["num_warps"] > 4, info  # a worker warp, rounded up to a warpgroup


COMPILE_GEMM = r"""
import json, os, sys
sys.path[:0] = sys.argv[1:4]
import torch, test_gluon
out = {}
for swap_ab, w_kmajor in ((False, True), (False, False), (True, True)):
    a = torch.empty(256, 512, dtype=torch.bfloat16)
    w = torch.empty(384, 512, dtype=torch.bfloat16) if w_kmajor else torch.empty(512, 384, dtype=torch.bfloat16)
    info = test_gluon.launch_gemm(a, w, torch.empty(256, 384, dtype=torch.bfloat16), w_kmajor, swap_ab=swap_ab,
                                  warmup=True)
    out[f"{swap_ab} {w_kmajor}"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"]}
a, w = torch.empty(256, 512, dtype=torch.bfloat16), torch.empty(384, 512, dtype=torch.bfloat16)
info = test_gluon.launch_stream_k(a, w, torch.empty(256, 384, dtype=torch.bfloat16), True, warmup=True)
out["stream-K"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"]}
info = test_gluon.launch_pingpong(a, w, torch.empty(256, 384, dtype=torch.bfloat16), True, warmup=True)
out["ping-pong"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"]}
info = test_gluon.launch_sliced(a, w, torch.empty(256, 384, dtype=torch.bfloat16), tile=(3, 128, 64), warmup=True)
out["sliced"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"]}
print(json.dumps(out))
"""


def test_the_hopper_gemm_compiles_to_wgmma_tma_and_warp_specialization(tmp_path):
    import json
    import subprocess
    env = dict(os.environ, TRITON_JIT_KEEP_IR="1", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", COMPILE_GEMM, os.path.dirname(__file__), os.path.join(BUILD, "python"),
                             KERNELS], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    for case, info in json.loads(result.stdout.strip().splitlines()[-1]).items():
        ptx = info["ptx"]
        assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx and "setmaxnreg" in ptx, case
        assert "tensormap" in ptx, case  # the descriptors are made on the device
        assert info["num_warps"] > 4, (case, info["num_warps"])  # with the producer's warp, rounded up
    # Stream-K counts a cut tile's pieces with an acquire-release add and reads them past L1.
    ptx = json.loads(result.stdout.strip().splitlines()[-1])["stream-K"]["ptx"]
    assert "atom.global.gpu.acq_rel.add" in ptx and "ld.global.cg" in ptx
    # Ping-pong: two consumer warpgroups and the producer's warp, 12 warps in all.
    assert json.loads(result.stdout.strip().splitlines()[-1])["ping-pong"]["num_warps"] == 12
    # Three slices of 64 weight rows: three consumer warpgroups and the producer's, each stage's
    # weight loaded as three blocks.
    sliced = json.loads(result.stdout.strip().splitlines()[-1])["sliced"]
    assert sliced["num_warps"] == 16
    assert sliced["ptx"].count("cp.async.bulk.tensor.2d.shared::cluster.global") == 4


def launch_gemm(a, w, c, w_kmajor, bias=None, swap_ab=None, warmup=False, triton_itself=False):
    """C = A @ W (W given [N, K] when w_kmajor, else [K, N]) through matmul_ws_kernel."""
    M, K = a.shape
    N = w.shape[0] if w_kmajor else w.shape[1]
    swap = (M <= 64 and w_kmajor) if swap_ab is None else swap_ab
    if swap:
        tile_r, tile_c, block_k, warps = 64, max(16, triton.next_power_of_2(M)), 128, 4
        stages = matmul_gluon.stages_that_fit(tile_r, tile_c, block_k, a.element_size())
        args = (w, a, c, bias, N, M, K, w.stride(0), a.stride(0), c.stride(0))
    else:
        # The tiles measured fastest on the H200 (measurements/gluon/2026-12-04-gemm-first-look.txt).
        tile_r, tile_c, block_k, stages, warps = (64, 64, 64, 8, 4) if M <= 256 else (128, 256, 64, 3, 8)
        args = (a, w, c, bias, M, N, K, a.stride(0), w.stride(0), c.stride(0))
    tiles = triton.cdiv(args[4], tile_r) * triton.cdiv(args[5], tile_c)
    sms = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 132
    grid = (min(sms, tiles),)
    meta = dict(TILE_R=tile_r, TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=stages, W_KMAJOR=w_kmajor,
                SWAP_AB=swap, HAS_BIAS=bias is not None, num_warps=warps)
    if warmup:
        return triton_jit.jit(matmul_gluon.matmul_ws_kernel).warmup(*args, grid=grid, **meta)
    if triton_itself:
        return matmul_gluon.matmul_ws_kernel[grid](*args, **meta)
    return triton_jit.jit(matmul_gluon.matmul_ws_kernel)[grid](*args, **meta)


class StreamKScratch:
    """matmul_stream_k_kernel's scratch for `programs` programs of TILE_R x TILE_C tiles."""

    def __init__(self, programs, tile_r, tile_c, device):
        self.partial = torch.empty(programs, 2, tile_r, tile_c, device=device, dtype=torch.float32)
        self.counts = torch.zeros(2 * programs, device=device, dtype=torch.int32)


def launch_stream_k(a, w, c, w_kmajor, bias=None, tile=(128, 128, 64, 4, 4), programs=None, scratch=None,
                    warmup=False, triton_itself=False):
    """C = A @ W (W [N, K] when w_kmajor, else [K, N]) through matmul_stream_k_kernel; returns
    the scratch it used (or warmup's information)."""
    M, K = a.shape
    N = w.shape[0] if w_kmajor else w.shape[1]
    tile_r, tile_c, block_k, stages, warps = tile
    if programs is None:
        sms = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 132
        programs = matmul_gluon.stream_k_programs(M, N, K, tile_r, tile_c, block_k, sms)
    scratch = scratch or StreamKScratch(programs, tile_r, tile_c, a.device)
    args = (a, w, c, bias, scratch.partial, scratch.counts, M, N, K, a.stride(0), w.stride(0), c.stride(0))
    meta = dict(TILE_R=tile_r, TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=stages, W_KMAJOR=w_kmajor,
                HAS_BIAS=bias is not None, num_warps=warps)
    if warmup:
        return triton_jit.jit(matmul_gluon.matmul_stream_k_kernel).warmup(*args, grid=(programs, ), **meta)
    if triton_itself:
        matmul_gluon.matmul_stream_k_kernel[(programs, )](*args, **meta)
    else:
        triton_jit.jit(matmul_gluon.matmul_stream_k_kernel)[(programs, )](*args, **meta)
    return scratch


def bf16_product(M, N, K, w_kmajor):
    """A Hopper GEMM test's operands: A, the weight as the kernel takes it, a bias for the ragged
    1000-row case, C full of NaN (so that a tile left unwritten shows) and the float64 product."""
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the Gluon GEMM is Hopper's")
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    torch.manual_seed(M + N + K)
    a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K**0.5
    bias = torch.randn(N, device="cuda", dtype=torch.bfloat16) if M == 1000 else None
    weight = w if w_kmajor else w.t().contiguous()
    reference = a.double() @ w.double().t() + (bias.double() if bias is not None else 0)
    c = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
    return a, weight, bias, c, reference


def launch_pingpong(a, w, c, w_kmajor, bias=None, tile=(128, 128, 64), programs=None, warmup=False,
                    triton_itself=False):
    """C = A @ W (W [N, K] when w_kmajor, else [K, N]) through matmul_pingpong_kernel."""
    M, K = a.shape
    N = w.shape[0] if w_kmajor else w.shape[1]
    tile_r, tile_c, block_k = tile
    stages = matmul_gluon.stages_that_fit(tile_r, tile_c, block_k, a.element_size(), epilogues=2)
    if programs is None:
        sms = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 132
        programs = min(sms, triton.cdiv(M, tile_r) * triton.cdiv(N, tile_c))
    args = (a, w, c, bias, M, N, K, a.stride(0), w.stride(0), c.stride(0))
    meta = dict(TILE_R=tile_r, TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=stages, W_KMAJOR=w_kmajor,
                HAS_BIAS=bias is not None, num_warps=4)
    if warmup:
        return triton_jit.jit(matmul_gluon.matmul_pingpong_kernel).warmup(*args, grid=(programs, ), **meta)
    if triton_itself:
        return matmul_gluon.matmul_pingpong_kernel[(programs, )](*args, **meta)
    return triton_jit.jit(matmul_gluon.matmul_pingpong_kernel)[(programs, )](*args, **meta)


def launch_sliced(a, w, c, bias=None, tile=(3, 128, 64), programs=None, warmup=False, triton_itself=False):
    """C = A @ W^T (W [N, K]) through matmul_sliced_kernel, tile = (slices, tokens, BLOCK_K)."""
    M, K = a.shape
    N = w.shape[0]
    slices, tile_c, block_k = tile
    stages = matmul_gluon.stages_that_fit(64 * slices, tile_c, block_k, a.element_size())
    if programs is None:
        sms = torch.cuda.get_device_properties(0).multi_processor_count if torch.cuda.is_available() else 132
        programs = min(sms, triton.cdiv(N, 64 * slices) * triton.cdiv(M, tile_c))
    args = (w, a, c, bias, N, M, K, w.stride(0), a.stride(0), c.stride(0))
    meta = dict(TILE_C=tile_c, BLOCK_K=block_k, GROUP_M=8, NUM_STAGES=stages, SLICES=slices,
                HAS_BIAS=bias is not None, num_warps=4)
    if warmup:
        return triton_jit.jit(matmul_gluon.matmul_sliced_kernel).warmup(*args, grid=(programs, ), **meta)
    if triton_itself:
        return matmul_gluon.matmul_sliced_kernel[(programs, )](*args, **meta)
    return triton_jit.jit(matmul_gluon.matmul_sliced_kernel)[(programs, )](*args, **meta)


# (M, N, K, (slices, tokens, BLOCK_K), programs): the one-wave tiles of Llama-3-8B's qkv and
# Qwen2.5-7B's at 512 rows (192 x 128), four and two slices, ragged edges on both sides with a
# bias (1000 rows: N = 1000 is not a multiple of 192, nor M = 300 of 128), a K that is not a
# multiple of BLOCK_K, and several tiles a program.
SLICED_CASES = [
    (512, 6144, 4096, (3, 128, 64), None),
    (512, 4608, 3584, (3, 128, 64), None),
    (128, 37888, 3584, (4, 128, 64), None),
    (256, 4096, 14336, (2, 256, 64), None),
    (300, 1000, 2000, (3, 128, 64), 3),
    (65, 1000, 200, (3, 64, 64), None),
]


@requires_gpu
@pytest.mark.parametrize("M, N, K, tile, programs", SLICED_CASES,
                         ids=[f"{m}x{n}x{k}-{t[0]}x{t[1]}" for m, n, k, t, _ in SLICED_CASES])
def test_the_sliced_gemm_matches_torch(M, N, K, tile, programs):
    a, weight, _, c, _ = bf16_product(M, N, K, True)
    bias = torch.randn(N, device="cuda", dtype=torch.bfloat16) if N == 1000 else None
    reference = a.double() @ weight.double().t() + (bias.double() if bias is not None else 0)
    launch_sliced(a, weight, c, bias=bias, tile=tile, programs=programs)
    theirs = torch.full_like(c, float("nan"))
    launch_sliced(a, weight, theirs, bias=bias, tile=tile, programs=programs, triton_itself=True)
    torch.cuda.synchronize()
    error = ((c.double() - reference).norm() / reference.norm()).item()
    assert error < 1e-2, error
    assert torch.equal(c, theirs)  # the runtime launches what Triton launches


# (M, N, K, tile, programs): several tiles a program (the second warpgroup's count one short of
# the first's in some), one tile a program (the second warpgroup idle), ragged edges with a
# bias, 64 x 256 tiles, and a long K that wraps the ring many times within a tile.
PINGPONG_CASES = [
    (2048, 4096, 4096, (128, 128, 64), None),
    (384, 384, 256, (128, 128, 64), None),
    (1000, 1000, 2000, (128, 128, 64), 7),
    (2048, 6144, 4096, (64, 256, 64), None),
    (512, 512, 14336, (128, 128, 64), 5),
]


@requires_gpu
@pytest.mark.parametrize("w_kmajor", [True, False], ids=["kmajor", "nmajor"])
@pytest.mark.parametrize("M, N, K, tile, programs", PINGPONG_CASES,
                         ids=[f"{m}x{n}x{k}-{t[0]}x{t[1]}" for m, n, k, t, _ in PINGPONG_CASES])
def test_the_pingpong_gemm_matches_torch(M, N, K, tile, programs, w_kmajor):
    a, weight, bias, c, reference = bf16_product(M, N, K, w_kmajor)
    launch_pingpong(a, weight, c, w_kmajor, bias=bias, tile=tile, programs=programs)
    theirs = torch.full_like(c, float("nan"))
    launch_pingpong(a, weight, theirs, w_kmajor, bias=bias, tile=tile, programs=programs, triton_itself=True)
    torch.cuda.synchronize()
    error = ((c.double() - reference).norm() / reference.norm()).item()
    assert error < 1e-2, error
    assert torch.equal(c, theirs)  # the runtime launches what Triton launches


# (M, N, K, tile, programs): every tile cut (a partial second wave; fewer tiles than SMs, up to
# five programs a tile), whole waves before the cut ones, one K block a program (three a tile),
# whole waves only, ragged edges with a bias, and 8 warps on 128 x 256 tiles.
STREAM_K_CASES = [
    (512, 4608, 3584, (128, 128, 64, 4, 4), None),
    (128, 4096, 4096, (128, 128, 64, 4, 4), None),
    (2048, 4096, 512, (128, 128, 64, 4, 4), None),
    (256, 1024, 192, (128, 128, 64, 4, 4), None),
    (256, 4224, 64, (128, 128, 64, 4, 4), None),
    (1000, 1000, 2000, (64, 128, 64, 6, 4), 37),
    (384, 6144, 4096, (128, 256, 64, 3, 8), None),
]


@requires_gpu
@pytest.mark.parametrize("w_kmajor", [True, False], ids=["kmajor", "nmajor"])
@pytest.mark.parametrize("M, N, K, tile, programs", STREAM_K_CASES,
                         ids=[f"{m}x{n}x{k}-{t[0]}x{t[1]}" for m, n, k, t, _ in STREAM_K_CASES])
def test_the_stream_k_gemm_matches_torch_and_leaves_its_counts_at_zero(M, N, K, tile, programs, w_kmajor):
    a, weight, bias, c, reference = bf16_product(M, N, K, w_kmajor)
    scratch = launch_stream_k(a, weight, c, w_kmajor, bias=bias, tile=tile, programs=programs)
    torch.cuda.synchronize()
    error = ((c.double() - reference).norm() / reference.norm()).item()
    assert error < 1e-2, error
    assert int(scratch.counts.count_nonzero()) == 0  # the next launch may use the same scratch
    # Again on the same scratch, and through Triton's own launch: a cut tile's pieces are added in
    # program order whichever program adds the last, so the bits are the same.
    again = torch.full_like(c, float("nan"))
    launch_stream_k(a, weight, again, w_kmajor, bias=bias, tile=tile, programs=programs, scratch=scratch)
    theirs = torch.full_like(c, float("nan"))
    launch_stream_k(a, weight, theirs, w_kmajor, bias=bias, tile=tile, programs=programs, scratch=scratch,
                    triton_itself=True)
    torch.cuda.synchronize()
    assert torch.equal(c, again) and torch.equal(c, theirs)
    assert int(scratch.counts.count_nonzero()) == 0


@requires_gpu
def test_gluon_launches_match_tritons_bit_for_bit():
    x = torch.randn(256, 64, device="cuda", dtype=torch.float16)
    theirs, ours = torch.empty_like(x), torch.empty_like(x)
    gluon_kernels.copy_tile[(4,)](descriptor(x, [64, 64]), descriptor(theirs, [64, 64]))
    triton_jit.jit(gluon_kernels.copy_tile)[(4,)](descriptor(x, [64, 64]), descriptor(ours, [64, 64]))
    torch.cuda.synchronize()
    assert torch.equal(theirs, x) and torch.equal(ours, x)
    y = torch.randn(5000, device="cuda")
    out = torch.empty_like(y)
    triton_jit.jit(gluon_kernels.specialized_add_one)[(triton.cdiv(5000, 128),)](y, out, 5000, BLOCK=128)
    torch.cuda.synchronize()
    assert torch.equal(out, y + 1)


GEMM_SHAPES = [(1, 4096, 4096), (7, 14336, 4096), (16, 4096, 14336), (64, 6144, 4096), (128, 4096, 4096),
               (1000, 1000, 2000), (2048, 4096, 4096), (4096, 14336, 4096)]


@requires_gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=["bf16", "fp16"])
@pytest.mark.parametrize("w_kmajor", [True, False], ids=["kmajor", "nmajor"])
@pytest.mark.parametrize("M, N, K", GEMM_SHAPES, ids=[f"{m}x{n}x{k}" for m, n, k in GEMM_SHAPES])
def test_the_hopper_gemm_matches_torch(M, N, K, w_kmajor, dtype):
    if torch.cuda.get_device_capability()[0] != 9:
        pytest.skip("the Gluon GEMM is Hopper's")
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    torch.manual_seed(M * 7 + N + K)
    a = torch.randn(M, K, device="cuda", dtype=dtype)
    w = torch.randn(N, K, device="cuda", dtype=dtype) / K**0.5
    bias = torch.randn(N, device="cuda", dtype=dtype)
    weight = w if w_kmajor else w.t().contiguous()
    c = torch.full((M, N), float("nan"), device="cuda", dtype=dtype)
    launch_gemm(a, weight, c, w_kmajor, bias=bias)
    reference = (a.double() @ w.double().t() + bias.double())
    error = ((c.double() - reference).norm() / reference.norm()).item()
    assert error < 1e-2, error
    theirs = torch.full_like(c, float("nan"))
    launch_gemm(a, weight, theirs, w_kmajor, bias=bias, triton_itself=True)
    torch.cuda.synchronize()
    assert torch.equal(c, theirs)  # the runtime launches what Triton launches


COMPILE_ATTENTION = r"""
import json, os, sys
sys.path[:0] = sys.argv[1:4]
import torch, triton_jit, attention_gluon
out = {}
for d, dtype, causal in ((128, torch.bfloat16, True), (64, torch.float16, False), (256, torch.bfloat16, True)):
    q, o = torch.empty(300, 32, d, dtype=dtype), torch.empty(300, 32, d, dtype=dtype)
    k, v = torch.empty(300, 8, d, dtype=dtype), torch.empty(300, 8, d, dtype=dtype)
    cu = torch.tensor([0, 100, 300], dtype=torch.int32)
    # What attention.cpp passes on Hopper (run_gluon_prefill).
    block_n, stages = (64, 2) if d == 256 else (128, 3)
    info = triton_jit.jit(attention_gluon.attention_fwd_pingpong_kernel).warmup(
        q, k, v, o, cu, cu, 0.1275, q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
        o.stride(0), o.stride(1), 300, 300, GROUP=4, HEAD_DIM=d, CAUSAL=causal, BLOCK_M=128, BLOCK_N=block_n,
        NUM_STAGES=stages, num_warps=4, grid=None)
    out[f"d={d} {dtype} causal={causal}"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"],
                                             "shared": info["shared_memory"]}
    if d == 256:
        continue
    # The persistent kernel, for batches of short sequences: two query tiles, fewer stages.
    config = attention_gluon.launch_config(d, 2, causal, 300, persistent=True)
    info = triton_jit.jit(attention_gluon.attention_fwd_persistent_kernel).warmup(
        q, k, v, o, cu, cu, 0.1275, q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
        o.stride(0), o.stride(1), 300, 300, 32, 2, 3, GROUP=4, HEAD_DIM=d, CAUSAL=causal, grid=None, **config)
    out[f"persistent d={d} {dtype} causal={causal}"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"],
                                                        "shared": info["shared_memory"]}
# The ping-pong kernel whose warpgroups issue their products in turn, beside the d=64 case above.
q, o = torch.empty(300, 32, 64, dtype=torch.float16), torch.empty(300, 32, 64, dtype=torch.float16)
k, v = torch.empty(300, 8, 64, dtype=torch.float16), torch.empty(300, 8, 64, dtype=torch.float16)
info = triton_jit.jit(attention_gluon.attention_fwd_ordered_kernel).warmup(
    q, k, v, o, cu, cu, 0.1275, q.stride(0), q.stride(1), k.stride(0), k.stride(1), v.stride(0), v.stride(1),
    o.stride(0), o.stride(1), 300, 300, GROUP=4, HEAD_DIM=64, CAUSAL=False, BLOCK_M=128, BLOCK_N=128, NUM_STAGES=3,
    num_warps=4, grid=None)
out["ordered d=64"] = {"num_warps": info["num_warps"], "ptx": info["ir"]["ptx"], "shared": info["shared_memory"]}
print(json.dumps(out))
"""


def test_the_hopper_attention_compiles_with_the_wrappers_arguments(tmp_path):
    import json
    import subprocess
    env = dict(os.environ, TRITON_JIT_KEEP_IR="1", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", COMPILE_ATTENTION, os.path.join(BUILD, "python"),
                             os.path.join(ROOT, "operators", "attention"), os.path.join(ROOT, "operators", "common")],
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    for case, info in json.loads(result.stdout.strip().splitlines()[-1]).items():
        ptx = info["ptx"]
        assert "wgmma.mma_async" in ptx and "cp.async.bulk.tensor" in ptx and "setmaxnreg" in ptx, case
        # Two consumer warpgroups of 4 warps and the producer's warp, rounded up to a warpgroup.
        assert info["num_warps"] == 12, (case, info["num_warps"])
        # The query tile and the ring fit the 227 KB a block may take on sm_90.
        assert 100_000 < info["shared"] <= 232448, (case, info["shared"])
    # Taking turns adds a wait and an arrival on the turn barriers at each of a tile's three issue
    # points (the first block, the loop, the last block), per warpgroup.
    compiled = json.loads(result.stdout.strip().splitlines()[-1])
    ordered, plain = compiled["ordered d=64"]["ptx"], compiled["d=64 torch.float16 causal=False"]["ptx"]
    assert ordered.count("mbarrier.arrive") >= plain.count("mbarrier.arrive") + 6
    assert ordered.count("mbarrier.try_wait") >= plain.count("mbarrier.try_wait") + 5
