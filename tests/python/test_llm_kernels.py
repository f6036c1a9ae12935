"""The operator library's kernels for LLM shapes, on CPU: Triton compiles each for sm_90 with the
signatures and constants the C++ wrappers pass (the persistent matmul's TMA descriptors and
wgmma, the decode-step matmul's pipelined loads), and Triton's interpreter runs them against torch
(interpreted_kernels.py). Their speed against ATen is measured on the H200 by
benchmarks/ops/sweep_kernels.py and bench_llm.py."""
import importlib.util
import os
import re
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
OPERATORS = os.path.join(HERE, "..", "..", "operators")


def load(relative, name):
    spec = importlib.util.spec_from_file_location(os.path.basename(relative)[:-3], os.path.join(OPERATORS, relative))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    kernel = getattr(m, name)
    while type(kernel).__name__ in ("Autotuner", "Heuristics"):
        kernel = kernel.fn
    return kernel


def compile_sm90(kernel, signature, constants, warps, stages, divisible=()):
    import triton
    from triton.backends.compiler import GPUTarget
    signature = {**signature, **{name: "constexpr" for name in constants}}
    names = kernel.arg_names
    attrs = {(names.index(n),): [["tt.divisibility", 16]] for n in divisible}
    source = triton.compiler.ASTSource(fn=kernel, signature={n: signature[n] for n in names}, constexprs=constants,
                                       attrs=attrs)
    return triton.compile(source, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})


MATMUL_STRIDES = ("stride_ab", "stride_am", "stride_ak", "stride_bb", "stride_bk", "stride_bn", "stride_cb",
                  "stride_cm", "stride_cn", "stride_biasb", "stride_biasm", "stride_biasn")


@pytest.mark.parametrize("block_m", [16, 64])
def test_the_decode_step_matmul_pipelines_its_weight_loads_on_sm90(block_m):
    kernel = load("matmul/matmul_skinny.py", "matmul_skinny_kernel")
    signature = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "bias_ptr": "*bf16", "M": "i32", "N": "i32",
                 "K": "i32", **{s: "i32" for s in MATMUL_STRIDES if s not in ("stride_ak", "stride_bk", "stride_cn")},
                 "alpha": "fp32", "beta": "fp32", "batch_offset": "i32"}
    constants = {"stride_ak": 1, "stride_bk": 1, "stride_cn": 1, "HAS_BIAS": False, "BLOCK_M": block_m, "BLOCK_N": 32,
                 "BLOCK_K": 256, "EVEN_K": True, "INDEX64": False, "GDC": False}
    compiled = compile_sm90(kernel, signature, constants, 4, 4,
                            divisible=("a_ptr", "b_ptr", "c_ptr", "N", "K", "stride_ab", "stride_am", "stride_bb", "stride_bn",
                                       "stride_cb", "stride_cm"))
    ptx = compiled.asm["ptx"]
    assert "cp.async" in ptx, "the weight's loads are not pipelined"
    # buffers for the three tiles in flight of a four-stage pipeline (the weight's and the tokens')
    assert compiled.metadata.shared >= 3 * (32 + block_m) * 256 * 2


@pytest.mark.parametrize("gdc", [False, True])
def test_a_dependent_launch_waits_for_its_predecessor_first_on_sm90(gdc):
    """GDC (common/dependent_launch.h): the kernel waits on griddepcontrol before its first load,
    and without it nothing of the kind is compiled in."""
    norm = compile_sm90(load("norm/norm.py", "norm_kernel"),
                        {"x_ptr": "*bf16", "res_ptr": "*bf16", "res_out_ptr": "*bf16", "w_ptr": "*bf16", "b_ptr": "*bf16",
                         "out_ptr": "*bf16", "M": "i32", "N": "i32", "eps": "fp32"},
                        {"RMS": True, "HAS_RES": True, "HAS_W": True, "HAS_B": False, "ONE_PASS": True, "BLOCK_N": 4096,
                         "INDEX64": False, "GDC": gdc}, 8, 1)
    gated = compile_sm90(load("fused/gated.py", "gated_kernel"), {"x_ptr": "*bf16", "out_ptr": "*bf16", "R": "i32",
                                                                  "D": "i32"},
                         {"ACT": "silu", "BLOCK_R": 1, "BLOCK_D": 1024, "INDEX64": False, "GDC": gdc}, 4, 1)
    skinny = compile_sm90(load("matmul/matmul_skinny.py", "matmul_skinny_split_kernel"),
                          {"a_ptr": "*bf16", "b_ptr": "*bf16", "partial_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                           "stride_am": "i32", "stride_bn": "i32"},
                          {"stride_ak": 1, "stride_bk": 1, "BLOCK_M": 32, "SPLIT_K": 2, "BLOCK_N": 64, "BLOCK_K": 128,
                           "EVEN_K": True, "INDEX64": False, "GDC": gdc}, 4, 4)
    for compiled in (norm, gated, skinny):
        ptx = compiled.asm["ptx"]
        if not gdc:
            assert "griddepcontrol" not in ptx
            continue
        wait = ptx.index("griddepcontrol.wait")
        first_load = min(ptx.index(load) for load in ("ld.global", "cp.async.ca", "cp.async.cg") if load in ptx)
        assert wait < first_load and "griddepcontrol.launch_dependents" in ptx
    if gdc:  # no L2 prefetch of the weight unless PREFETCH_TILES asks for one
        assert "cp.async.bulk.prefetch.L2.global" not in skinny.asm["ptx"]


@pytest.mark.parametrize("after_loop, prefetch", [(True, 0), (False, 4)])
def test_where_a_dependent_product_signals_and_what_it_prefetches_follow_its_module(after_loop, prefetch):
    """DEPENDENTS_AFTER_LOOP: the product lets the next kernel launch after its main loop, not at
    its start; PREFETCH_TILES: it asks L2 for its weight's first tiles before it waits (the
    choices the decoder was timed with, beside the module's own)."""
    import triton.language as tl
    kernel = load("matmul/matmul_skinny.py", "matmul_skinny_split_kernel")
    kernel.fn.__globals__.update(DEPENDENTS_AFTER_LOOP=tl.constexpr(after_loop), PREFETCH_TILES=tl.constexpr(prefetch))
    skinny = compile_sm90(kernel,
                          {"a_ptr": "*bf16", "b_ptr": "*bf16", "partial_ptr": "*fp32", "M": "i32", "N": "i32", "K": "i32",
                           "stride_am": "i32", "stride_bn": "i32"},
                          {"stride_ak": 1, "stride_bk": 1, "BLOCK_M": 32, "SPLIT_K": 2, "BLOCK_N": 64, "BLOCK_K": 128,
                           "EVEN_K": True, "INDEX64": False, "GDC": True}, 4, 4)
    ptx = skinny.asm["ptx"]
    wait, signal = ptx.index("griddepcontrol.wait"), ptx.index("griddepcontrol.launch_dependents")
    products = [m.start() for m in re.finditer(r"wgmma\.mma_async|mma\.sync", ptx)]
    if after_loop:
        assert signal > products[-1] and signal > wait  # after the loop's last product
    else:
        assert wait < signal < products[0]
    if prefetch == 0:
        assert "cp.async.bulk.prefetch.L2.global" not in ptx
    else:  # asked of L2 before the wait
        assert ptx.index("cp.async.bulk.prefetch.L2.global") < wait


@pytest.mark.parametrize("k_major, subtile", [(True, True), (False, False)])
def test_the_persistent_matmul_uses_tma_and_wgmma_on_sm90(k_major, subtile):
    kernel = load("matmul/matmul_tma.py", "matmul_tma_kernel")
    signature = {"a_ptr": "*bf16", "b_ptr": "*bf16", "c_ptr": "*bf16", "bias_ptr": "*bf16", "M": "i32", "N": "i32",
                 "K": "i32", "BATCH": "i32", "stride_ab": "i64", "stride_am": "i32", "stride_bb": "i64",
                 "stride_bk": "i32", "stride_bn": "i32", "stride_cb": "i64", "stride_cm": "i32", "stride_biasb": "i32",
                 "stride_biasm": "i32", "stride_biasn": "i32", "alpha": "fp32", "beta": "fp32", "M_CLASS": "i32"}
    constants = {"HAS_BIAS": True, "B_KMAJOR": k_major, "NUM_SMS": 132, "BLOCK_M": 128, "BLOCK_N": 256, "BLOCK_K": 64,
                 "GROUP_M": 8, "EPILOGUE_SUBTILE": subtile}
    compiled = compile_sm90(kernel, signature, constants, 8, 3)
    ptx = compiled.asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx and "wgmma.mma_async" in ptx
    assert compiled.metadata.global_scratch_size > 0  # the descriptors are built on the device


@pytest.mark.parametrize("pieces", [(128, 0, 0), (64, 32, 0), (128, 64, 32)])
def test_the_one_wave_matmul_uses_tma_and_wgmma_on_sm90_for_every_piece(pieces):
    kernel = load("matmul/matmul_wave.py", "matmul_wave_kernel")
    signature = {"a_desc": "tensordesc<bf16[64, 64]>", "c_ptr": "*bf16", "bias_ptr": "*bf16", "M": "i32", "N": "i32",
                 "K": "i32", "stride_cm": "i32", "stride_biasm": "i32", "stride_biasn": "i32", "alpha": "fp32",
                 "beta": "fp32", "M_CLASS": "i32",
                 **{f"b{i}_desc": f"tensordesc<bf16[{p or 64}, 64]>" for i, p in enumerate(pieces)}}
    constants = {"HAS_BIAS": True, "NUM_SMS": 132, "BLOCK_M": 64, "BLOCK_N0": pieces[0], "BLOCK_N1": pieces[1],
                 "BLOCK_N2": pieces[2], "BLOCK_K": 64}
    compiled = compile_sm90(kernel, signature, constants, 4, 4)
    ptx = compiled.asm["ptx"]
    assert "cp.async.bulk.tensor" in ptx and "wgmma.mma_async" in ptx
    used = sum(1 for p in pieces if p)
    assert "tensormap.cp_fenceproxy" not in ptx  # the descriptors come from the host, none is built here
    assert ptx.count("wgmma.commit_group") == used  # one dot a piece, each into its own accumulator


@pytest.mark.parametrize("radix_bits,groups", [(5, 0), (5, 128), (8, 0)])
@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16", "i32"])
def test_the_radix_topk_and_its_sort_compile_on_sm90(dtype, radix_bits, groups):
    radix = load("topk/topk.py", "topk_radix_kernel")
    compile_sm90(radix, {"x_ptr": f"*{dtype}", "idx_in_ptr": "*i32", "keys_out_ptr": "*i32", "idx_out_ptr": "*i32",
                         "N": "i32", "K": "i32"}, {"LARGEST": True, "PARTIAL_IN": False, "BLOCK": 2048, "K_PAD": 64,
                                                   "RADIX_BITS": radix_bits, "GROUPS": groups,
                                                   "SLOTS": 128 if groups else 0, "count_ptr": None, "ONLY_OVER": 0},
                 4, 1)
    sort = load("topk/topk.py", "topk_sort_kernel")
    compile_sm90(sort, {"x_ptr": "*i32", "idx_in_ptr": "*i32", "values_ptr": f"*{dtype}", "indices_ptr": "*i64",
                        "N": "i32", "K": "i32"}, {"LARGEST": False, "PARTIAL_IN": True, "BLOCK": 2048, "count_ptr": None,
                                                  "ONLY_OVER": 0}, 4, 1)


@pytest.mark.parametrize("dtype", ["fp32", "bf16", "fp16"])
def test_the_whole_row_topk_and_its_fallback_compile_on_sm90(dtype):
    """topk.cpp's run_topk_row_bound: the group maxima, their k-th, the gather, the sort of the
    candidates (32-bit words for 16-bit floats), and the rounds that do only the rows that
    overflowed."""
    compile_sm90(load("topk/topk.py", "topk_group_max_kernel"),
                 {"x_ptr": f"*{dtype}", "maxima_ptr": "*i32", "N": "i32", "G": "i32"},
                 {"LARGEST": True, "GROUP": 16, "BLOCK": 256}, 4, 1)
    compile_sm90(load("topk/topk.py", "topk_row_bound_kernel"),
                 {"maxima_ptr": "*i32", "bound_ptr": "*i32", "count_ptr": "*i32", "G": "i32", "K": "i32"},
                 {"BLOCK": 8192}, 16, 1)
    gather = compile_sm90(load("topk/topk.py", "topk_rows_gather_kernel"),
                          {"x_ptr": f"*{dtype}", "bound_ptr": "*i32", "count_ptr": "*i32", "keys_out_ptr": "*i32",
                           "idx_out_ptr": "*i32", "N": "i32", "SLOTS": "i32"}, {"LARGEST": True, "BLOCK": 4096}, 8, 1)
    assert "atom.global" in gather.asm["ptx"] or "red.global" in gather.asm["ptx"]
    compile_sm90(load("topk/topk.py", "topk_rows_sort_kernel"),
                 {"keys_ptr": "*i32", "idx_ptr": "*i32", "count_ptr": "*i32", "bound_ptr": "*i32",
                  "values_ptr": f"*{dtype}", "indices_ptr": "*i64", "SLOTS": "i32", "K": "i32", "POS_BITS": "i32"},
                 {"LARGEST": True, "KEY_SHIFT": {"fp32": 0, "bf16": 16, "fp16": 13}[dtype], "BLOCK": 2048}, 16, 1)
    compile_sm90(load("topk/topk.py", "topk_radix_kernel"),
                 {"x_ptr": "*i32", "idx_in_ptr": "*i32", "keys_out_ptr": "*i32", "idx_out_ptr": "*i32", "N": "i32",
                  "K": "i32", "count_ptr": "*i32"},
                 {"LARGEST": True, "PARTIAL_IN": True, "BLOCK": 4096, "K_PAD": 1024, "RADIX_BITS": 5, "GROUPS": 0,
                  "SLOTS": 0, "ONLY_OVER": 2048}, 8, 1)


def test_the_chunked_softmax_compiles_on_sm90():
    stats = load("reduction/softmax.py", "softmax_chunk_stats_kernel")
    compile_sm90(stats, {"x_ptr": "*bf16", "stats_ptr": "*fp32", "N": "i32", "CHUNK": "i32"}, {"BLOCK_N": 1024}, 4, 1)
    finish = load("reduction/softmax.py", "softmax_chunk_finish_kernel")
    compile_sm90(finish, {"x_ptr": "*bf16", "out_ptr": "*fp32", "stats_ptr": "*fp32", "N": "i32", "CHUNK": "i32"},
                 {"LOG": True, "BLOCK_N": 1024, "CHUNKS_PAD": 64}, 4, 1)


@pytest.mark.parametrize("part", ["matmuls", "topk", "topk_whole_row", "softmax", "reductions", "rotary_cache"])
def test_the_kernels_agree_with_torch_in_tritons_interpreter(part):
    env = {**os.environ, "TRITON_INTERPRET": "1"}
    run = subprocess.run([sys.executable, os.path.join(HERE, "interpreted_kernels.py"), part], env=env,
                         capture_output=True, text=True, timeout=1200)
    lines = [line for line in run.stdout.splitlines() if line.startswith(("ok", "FAIL"))]
    assert run.returncode == 0 and lines and all(line.startswith("ok") for line in lines), \
        run.stdout[-4000:] + run.stderr[-4000:]
