"""The attention ops: flash_attn_varlen (prefill), paged_attention (decode against a paged KV cache),
reshape_and_cache, and rotary_and_cache (a layer's rotary embedding and cache write in one launch). On CPU: Meta shapes, the errors, opcheck and torch.compile through the Meta
kernels, and the kernels compiled by Triton for sm_90 with the arguments the wrappers pass. On a
GPU: prefill against torch's scaled_dot_product_attention per sequence, decode against a float64
reference over the gathered pages, and the cache write exactly."""
import itertools
import math
import os

import pytest
import torch
import torch.nn.functional as F

from conftest import BUILD, requires_gpu

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

OPS_LIBRARY = os.path.join(BUILD, "lib", "libtriton_jit_ops.so")
KERNELS = os.path.join(BUILD, "lib", "triton_jit_kernels", "attention.py")


@pytest.fixture(scope="module", autouse=True)
def ops():
    torch.ops.load_library(OPS_LIBRARY)
    return torch.ops.triton_jit


def meta(*shape, dtype=torch.bfloat16):
    return torch.empty(shape, device="meta", dtype=dtype)


def cu_seqlens(lengths, device):
    return torch.tensor([0, *itertools.accumulate(lengths)], dtype=torch.int32, device=device)


# ---- CPU ------------------------------------------------------------------------------------------


def test_meta_shapes(ops):
    q, k = meta(100, 32, 128), meta(100, 8, 128)
    cu = meta(5, dtype=torch.int32)
    out = ops.flash_attn_varlen(q, k, k, cu, cu, 40, 40, causal=True)
    assert out.shape == (100, 32, 128) and out.dtype == torch.bfloat16 and out.device.type == "meta"
    cache = meta(64, 16, 8, 128)
    decoded = ops.paged_attention(meta(4, 32, 128), cache, cache, meta(4, 16, dtype=torch.int32),
                                  meta(4, dtype=torch.int32))
    assert decoded.shape == (4, 32, 128)
    assert ops.reshape_and_cache(meta(7, 8, 128), meta(7, 8, 128), cache, cache, meta(7, dtype=torch.int64)) is None
    for rope in meta(4096, 64), meta(4096, 64, dtype=torch.float32):  # the table in q's dtype or float32
        q_rot, k_rot = ops.rotary_and_cache(meta(7, 32, 128), meta(7, 8, 128), meta(7, 8, 128), rope, rope,
                                            meta(7, dtype=torch.int64), cache, cache, meta(7, dtype=torch.int64))
        assert q_rot.shape == (7, 32, 128) and k_rot.shape == (7, 8, 128) and q_rot.dtype == torch.bfloat16


def rotary_and_cache_with(**bad):
    """rotary_and_cache over valid meta arguments (32/8 heads of 128, pages of 16, 7 tokens) but `bad`."""
    args = dict(q=meta(7, 32, 128), k=meta(7, 8, 128), v=meta(7, 8, 128), cos=meta(4096, 64), sin=meta(4096, 64),
                positions=meta(7, dtype=torch.int64), key_cache=meta(64, 16, 8, 128), value_cache=meta(64, 16, 8, 128),
                slot_mapping=meta(7, dtype=torch.int64))
    return lambda o: o.rotary_and_cache(**{**args, **bad})


@pytest.mark.parametrize("call, message", [
    (lambda o: o.flash_attn_varlen(meta(10, 6, 64), meta(10, 4, 64), meta(10, 4, 64), meta(2, dtype=torch.int32),
                                   meta(2, dtype=torch.int32), 10, 10),
     r"flash_attn_varlen: the KV heads \(4\) must divide the query heads \(6\)"),
    (lambda o: o.flash_attn_varlen(meta(10, 4, 64), meta(10, 4, 64), meta(10, 4, 64), meta(2, dtype=torch.int64),
                                   meta(2, dtype=torch.int32), 10, 10),
     "flash_attn_varlen: cu_seqlens_q must be int32, got Long"),
    (lambda o: o.flash_attn_varlen(meta(10, 4, 96), meta(10, 4, 96), meta(10, 4, 96), meta(2, dtype=torch.int32),
                                   meta(2, dtype=torch.int32), 10, 10),
     "flash_attn_varlen: head_dim must be 16, 32, 64, 128 or 256, got 96"),
    (lambda o: o.flash_attn_varlen(meta(10, 4, 64), meta(10, 4, 64, dtype=torch.float16), meta(10, 4, 64),
                                   meta(2, dtype=torch.int32), meta(2, dtype=torch.int32), 10, 10),
     "flash_attn_varlen: q, k and v must have one dtype"),
    (lambda o: o.paged_attention(meta(4, 32, 128), meta(64, 16, 8, 128), meta(64, 16, 8, 128),
                                 meta(3, 16, dtype=torch.int32), meta(4, dtype=torch.int32)),
     r"paged_attention: block_tables and seq_lens must have a row per sequence of q \(4\)"),
    (lambda o: o.paged_attention(meta(4, 32, 128), meta(64, 12, 8, 128), meta(64, 12, 8, 128),
                                 meta(4, 16, dtype=torch.int32), meta(4, dtype=torch.int32)),
     "paged_attention: block_size must be a power of two, got 12"),
    (lambda o: o.reshape_and_cache(meta(7, 8, 128), meta(7, 8, 128), meta(64, 16, 4, 128), meta(64, 16, 4, 128),
                                   meta(7, dtype=torch.int64)),
     r"reshape_and_cache: the caches hold \[4, 128\] per token, the keys are \[8, 128\]"),
    (lambda o: o.reshape_and_cache(meta(7, 8, 128), meta(7, 8, 128), meta(64, 16, 8, 128), meta(64, 16, 8, 128),
                                   meta(6, dtype=torch.int64)),
     r"reshape_and_cache: slot_mapping must be \[tokens\] \(7\)"),
    (rotary_and_cache_with(cos=meta(4096, 80), sin=meta(4096, 80)),
     "rotary_and_cache: rotary_dim 160 is more than head_dim 128"),
    (rotary_and_cache_with(key_cache=meta(64, 16, 4, 128), value_cache=meta(64, 16, 4, 128)),
     r"rotary_and_cache: key_cache and value_cache must be \[blocks, block_size, kv_heads, head_dim\] \(8, 128\)"),
    (rotary_and_cache_with(positions=meta(7, dtype=torch.float32)),
     "rotary_and_cache: positions and slot_mapping must be int32 or int64, got Float"),
    (rotary_and_cache_with(cos=meta(4096, 64, dtype=torch.float64), sin=meta(4096, 64, dtype=torch.float64)),
     r"rotary_and_cache: cos and sin must have one dtype, q's \(BFloat16\) or Float, got Double and Double"),
    (rotary_and_cache_with(v=meta(7, 8, 128, dtype=torch.float16)),
     "rotary_and_cache: q, k, v and the caches must have one dtype, got BFloat16 and Half"),
    (lambda o: o.advance_step(meta(4, dtype=torch.int64), meta(4, 1, dtype=torch.int64), meta(4, dtype=torch.int64),
                              meta(4, dtype=torch.int32), meta(4, dtype=torch.int64), meta(3, 8, dtype=torch.int32), 16),
     r"advance_step: block_tables must be \[num_seqs, blocks per sequence\] \(4 rows\), got \[3, 8\]"),
    (lambda o: o.advance_step(meta(4, dtype=torch.int64), meta(4, 1, dtype=torch.float32), meta(4, dtype=torch.int64),
                              meta(4, dtype=torch.int32), meta(4, dtype=torch.int64), meta(4, 8, dtype=torch.int32), 16),
     "advance_step: every argument must be int32 or int64, got Float"),
])
def test_bad_arguments_are_errors_naming_the_op_and_the_argument(ops, call, message):
    with pytest.raises(RuntimeError, match=message):
        call(ops)


def test_compile_traces_one_graph_through_the_meta_kernels(ops):
    def step(q, k, v, cu, cache, tables, lens, slots):
        prefill = ops.flash_attn_varlen(q, k, v, cu, cu, 64, 64, causal=True)
        ops.reshape_and_cache(k, v, cache, cache, slots)
        return prefill, ops.paged_attention(q[:4], cache, cache, tables, lens)

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    dev = "meta"
    q = torch.empty(96, 8, 64, dtype=torch.float16, device=dev)
    kv = torch.empty(96, 2, 64, dtype=torch.float16, device=dev)
    out, decoded = compiled(q, kv, kv, torch.empty(3, dtype=torch.int32, device=dev),
                            torch.empty(16, 16, 2, 64, dtype=torch.float16, device=dev),
                            torch.empty(4, 4, dtype=torch.int32, device=dev), torch.empty(4, dtype=torch.int32, device=dev),
                            torch.empty(96, dtype=torch.int64, device=dev))
    assert out.shape == (96, 8, 64) and decoded.shape == (4, 8, 64)


def test_opcheck_on_meta_tensors(ops):
    cu = meta(3, dtype=torch.int32)
    torch.library.opcheck(ops.flash_attn_varlen, (meta(50, 8, 64), meta(50, 2, 64), meta(50, 2, 64), cu, cu, 30, 30),
                          {"causal": True}, test_utils=("test_schema", "test_faketensor"))
    cache = meta(16, 16, 2, 64)
    torch.library.opcheck(ops.paged_attention, (meta(3, 8, 64), cache, cache, meta(3, 4, dtype=torch.int32),
                                                meta(3, dtype=torch.int32)), test_utils=("test_schema", "test_faketensor"))
    torch.library.opcheck(ops.reshape_and_cache, (meta(5, 2, 64), meta(5, 2, 64), cache, meta(16, 16, 2, 64),
                                                  meta(5, dtype=torch.int64)), test_utils=("test_schema", "test_faketensor"))
    rope = meta(256, 32)
    torch.library.opcheck(ops.rotary_and_cache, (meta(5, 8, 64), meta(5, 2, 64), meta(5, 2, 64), rope, rope,
                                                 meta(5, dtype=torch.int64), cache, meta(16, 16, 2, 64),
                                                 meta(5, dtype=torch.int64)), test_utils=("test_schema", "test_faketensor"))


@pytest.mark.parametrize("dtype, head_dim", [("bf16", 128), ("fp16", 64), ("bf16", 256), ("fp32", 64)])
def test_the_kernels_compile_for_sm90_with_the_wrappers_arguments(dtype, head_dim):
    """Triton itself compiles each kernel with the signature and constexprs the C++ wrappers pass."""
    import importlib.util

    import triton
    from triton.backends.compiler import GPUTarget
    spec = importlib.util.spec_from_file_location("attention_kernels", KERNELS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    target = GPUTarget("cuda", 90, 32)
    ptr, f32p, i32p = f"*{dtype}", "*fp32", "*i32"
    precision = "ieee" if dtype == "fp32" else "tf32"
    wide = head_dim >= 256 or dtype == "fp32"
    prefill_sig = {"q_ptr": ptr, "k_ptr": ptr, "v_ptr": ptr, "o_ptr": ptr, "cu_q_ptr": i32p, "cu_k_ptr": i32p,
                   "scale_log2": "fp32", **{n: "i32" for n in ("stride_qt", "stride_qh", "stride_kt", "stride_kh",
                                                                "stride_vt", "stride_vh", "stride_ot", "stride_oh")}}
    prefill_constants = {"GROUP": 4, "HEAD_DIM": head_dim, "CAUSAL": True, "PRECISION": precision,
                         "BLOCK_M": 64 if wide else 128, "BLOCK_N": 32 if head_dim >= 256 else 64}
    kernels = [(module.prefill_kernel, prefill_sig, prefill_constants, 8 if head_dim >= 128 and not wide else 4)]
    decode_sig = {"q_ptr": ptr, "k_cache_ptr": ptr, "v_cache_ptr": ptr, "block_tables_ptr": i32p, "seq_lens_ptr": i32p,
                  "o_ptr": ptr, "part_m_ptr": f32p, "part_l_ptr": f32p, "part_acc_ptr": f32p, "scale_log2": "fp32",
                  "partitions": "i32", **{n: "i32" for n in ("stride_qb", "stride_qh", "stride_kb", "stride_kt",
                                                             "stride_kh", "stride_vb", "stride_vt", "stride_vh",
                                                             "stride_table", "stride_ob", "stride_oh")}}
    decode_constants = {"PAGE": 16, "GROUP": 4, "GROUP_PAD": 16, "HEAD_DIM": head_dim, "PARTITION": 512,
                        "BLOCK_N": 32 if head_dim >= 256 else 64, "SPLIT": True, "PRECISION": precision, "GDC": False}
    kernels.append((module.paged_decode_kernel, decode_sig, decode_constants, 4))
    reduce_sig = {"seq_lens_ptr": i32p, "o_ptr": ptr, "part_m_ptr": f32p, "part_l_ptr": f32p, "part_acc_ptr": f32p,
                  "partitions": "i32", "stride_ob": "i32", "stride_oh": "i32"}
    reduce_constants = {"HEAD_DIM": head_dim, "PARTITION": 512, "BLOCK_P": 32, "GDC": False}
    kernels.append((module.paged_reduce_kernel, reduce_sig, reduce_constants, 4))
    cache_sig = {"key_ptr": ptr, "value_ptr": ptr, "key_cache_ptr": ptr, "value_cache_ptr": ptr, "slot_ptr": "*i64",
                 **{n: "i32" for n in ("page", "stride_kt", "stride_vt", "stride_kcb", "stride_kct", "stride_vcb",
                                       "stride_vct", "width")}}
    kernels.append((module.reshape_and_cache_kernel, cache_sig, {"BLOCK": 1024}, 4))
    for fn, signature, constants, warps in kernels:
        signature = {**signature, **{name: "constexpr" for name in constants}}
        source = triton.compiler.ASTSource(fn=fn, signature=signature, constexprs=constants)
        compiled = triton.compile(source, target=target, options={"num_warps": warps})
        assert compiled.asm["cubin"], fn.__name__


# ---- GPU ------------------------------------------------------------------------------------------


def sdpa_reference(q, k, v, lengths_q, lengths_k, causal, scale):
    """Each sequence through torch's SDPA in float32 (KV heads repeated), causal bottom-right."""
    outs = []
    group = q.shape[1] // k.shape[1]
    qs, ks = 0, 0
    for lq, lk in zip(lengths_q, lengths_k):
        qi = q[qs:qs + lq].transpose(0, 1).float()
        ki = k[ks:ks + lk].transpose(0, 1).float().repeat_interleave(group, 0)
        vi = v[ks:ks + lk].transpose(0, 1).float().repeat_interleave(group, 0)
        mask = None
        if causal:
            rows = torch.arange(lq, device=q.device)[:, None]
            cols = torch.arange(lk, device=q.device)[None, :]
            mask = cols <= rows + (lk - lq)
        o = F.scaled_dot_product_attention(qi[None], ki[None], vi[None], attn_mask=mask, scale=scale)[0]
        if causal:
            o = torch.where(mask.any(-1)[None, :, None], o, torch.zeros_like(o))
        outs.append(o.transpose(0, 1))
        qs, ks = qs + lq, ks + lk
    return torch.cat(outs).to(q.dtype)


TOLERANCE = {torch.float16: 2e-3, torch.bfloat16: 1.6e-2, torch.float32: 1e-4}


@requires_gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("head_dim", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_prefill_matches_sdpa(ops, dtype, head_dim, causal):
    torch.manual_seed(head_dim + causal)
    lengths_q = [1, 17, 128, 333, 64]
    lengths_k = [1, 17, 128, 333, 64] if not causal else [1, 40, 128, 400, 64]  # chunked prefill: more keys
    heads, kv_heads = 8, 2
    q = torch.randn(sum(lengths_q), heads, head_dim, device="cuda", dtype=dtype)
    k = torch.randn(sum(lengths_k), kv_heads, head_dim, device="cuda", dtype=dtype)
    v = torch.randn(sum(lengths_k), kv_heads, head_dim, device="cuda", dtype=dtype)
    scale = 1.0 / math.sqrt(head_dim)
    out = ops.flash_attn_varlen(q, k, v, cu_seqlens(lengths_q, "cuda"), cu_seqlens(lengths_k, "cuda"),
                                max(lengths_q), max(lengths_k), causal=causal)
    expected = sdpa_reference(q, k, v, lengths_q, lengths_k, causal, scale)
    error = (out.float() - expected.float()).abs().max().item()
    assert error <= TOLERANCE[dtype] * 4, f"max error {error}"


@requires_gpu
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_prefill_of_short_sequences_matches_sdpa(ops, causal):
    """Sequences shorter than a query block, one of them exactly one block."""
    torch.manual_seed(3)
    lengths = [1, 17, 128, 64, 100]
    q = torch.randn(sum(lengths), 32, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(sum(lengths), 8, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(sum(lengths), 8, 128, device="cuda", dtype=torch.bfloat16)
    cu = cu_seqlens(lengths, "cuda")
    out = ops.flash_attn_varlen(q, k, v, cu, cu, max(lengths), max(lengths), softmax_scale=0.1, causal=causal)
    expected = sdpa_reference(q, k, v, lengths, lengths, causal, 0.1)
    assert (out.float() - expected.float()).abs().max().item() <= 4 * TOLERANCE[torch.bfloat16]


@requires_gpu
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_varlen_prefill_of_many_sequences_matches_sdpa(ops, head_dim, causal):
    """More tiles than SMs, many to each program of a persistent kernel: its ring and its query
    buffers wrap many times, across tiles of different lengths, sequences without queries and
    keys before the queries (chunked prefill)."""
    generator = torch.Generator().manual_seed(head_dim + causal)
    lengths_q = torch.randint(0, 700, (48, ), generator=generator).tolist()
    lengths_q[5] = 0
    lengths_k = [n + int(torch.randint(0, 200, (1, ), generator=generator)) * causal for n in lengths_q]
    q = torch.randn(sum(lengths_q), 32, head_dim, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(sum(lengths_k), 8, head_dim, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(sum(lengths_k), 8, head_dim, device="cuda", dtype=torch.bfloat16)
    out = ops.flash_attn_varlen(q, k, v, cu_seqlens(lengths_q, "cuda"), cu_seqlens(lengths_k, "cuda"),
                                max(lengths_q), max(lengths_k), causal=causal)
    expected = sdpa_reference(q, k, v, lengths_q, lengths_k, causal, 1.0 / math.sqrt(head_dim))
    assert (out.float() - expected.float()).abs().max().item() <= 4 * TOLERANCE[torch.bfloat16]


@requires_gpu
def test_prefill_matches_sdpa_flash_at_llama_shapes(ops):
    torch.manual_seed(0)
    q = torch.randn(2, 32, 1024, 128, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(2, 8, 1024, 128, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(2, 8, 1024, 128, device="cuda", dtype=torch.bfloat16)
    expected = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    flat = lambda t: t.transpose(1, 2).reshape(-1, t.shape[1], 128)  # noqa: E731
    cu = cu_seqlens([1024, 1024], "cuda")
    out = ops.flash_attn_varlen(flat(q), flat(k), flat(v), cu, cu, 1024, 1024, causal=True)
    error = (out.float() - flat(expected).float()).abs().max().item()
    assert error < 2e-2, error


def paged_inputs(lengths, heads, kv_heads, head_dim, page, dtype, spare_blocks=3):
    blocks_per_seq = max(math.ceil(max(lengths) / page), 1) + 1
    blocks = len(lengths) * blocks_per_seq + spare_blocks
    key_cache = torch.randn(blocks, page, kv_heads, head_dim, device="cuda", dtype=dtype)
    value_cache = torch.randn(blocks, page, kv_heads, head_dim, device="cuda", dtype=dtype)
    tables = torch.randperm(blocks, device="cuda")[:len(lengths) * blocks_per_seq].view(len(lengths), -1)
    q = torch.randn(len(lengths), heads, head_dim, device="cuda", dtype=dtype)
    return q, key_cache, value_cache, tables.to(torch.int32), torch.tensor(lengths, dtype=torch.int32, device="cuda")


def paged_reference(q, key_cache, value_cache, tables, lens, scale):
    """Float64: each sequence's keys and values gathered from its pages."""
    page = key_cache.shape[1]
    group = q.shape[1] // key_cache.shape[2]
    out = torch.zeros(q.shape, dtype=torch.float64, device=q.device)
    for b, n in enumerate(lens.tolist()):
        if n == 0:
            continue
        slots = tables[b].long()[torch.arange(n, device=q.device) // page] * page + torch.arange(n, device=q.device) % page
        k = key_cache.reshape(-1, *key_cache.shape[2:])[slots].double().repeat_interleave(group, 1)  # [n, H, D]
        v = value_cache.reshape(-1, *value_cache.shape[2:])[slots].double().repeat_interleave(group, 1)
        scores = torch.einsum("hd,nhd->hn", q[b].double(), k) * scale
        out[b] = torch.einsum("hn,nhd->hd", scores.softmax(-1), v)
    return out


@requires_gpu
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
@pytest.mark.parametrize("lengths, page", [([1, 7, 300, 0], 16), ([5000, 1, 513, 2048], 16), ([33, 64], 32),
                                           ([20000], 16), ([1000], 16), ([70000], 16)])
def test_paged_decode_matches_a_float64_reference(ops, dtype, lengths, page):
    torch.manual_seed(len(lengths))
    q, kc, vc, tables, lens = paged_inputs(lengths, 32, 8, 128, page, dtype)
    out = ops.paged_attention(q, kc, vc, tables, lens)
    expected = paged_reference(q, kc, vc, tables, lens, 1.0 / math.sqrt(128))
    error = (out.double() - expected).abs().max().item()
    assert error <= TOLERANCE[dtype], f"max error {error}"


@requires_gpu
@pytest.mark.parametrize("head_dim, heads, kv_heads", [(64, 8, 8), (256, 16, 2)])
def test_paged_decode_other_head_dims_and_groups(ops, head_dim, heads, kv_heads):
    q, kc, vc, tables, lens = paged_inputs([100, 1000], heads, kv_heads, head_dim, 16, torch.bfloat16)
    out = ops.paged_attention(q, kc, vc, tables, lens, softmax_scale=0.05)
    expected = paged_reference(q, kc, vc, tables, lens, 0.05)
    assert (out.double() - expected).abs().max().item() <= TOLERANCE[torch.bfloat16]


@requires_gpu
def test_paged_decode_captures_into_a_cuda_graph(ops):
    q, kc, vc, tables, lens = paged_inputs([100, 3000], 32, 8, 128, 16, torch.bfloat16)
    ops.paged_attention(q, kc, vc, tables, lens)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = ops.paged_attention(q, kc, vc, tables, lens)
    lens.copy_(torch.tensor([2000, 17], dtype=torch.int32))
    graph.replay()
    expected = paged_reference(q, kc, vc, tables, lens, 1.0 / math.sqrt(128))
    assert (out.double() - expected).abs().max().item() <= TOLERANCE[torch.bfloat16]


@requires_gpu
def test_reshape_and_cache_writes_each_token_at_its_slot(ops):
    page, blocks = 16, 10
    key_cache = torch.zeros(blocks, page, 8, 128, device="cuda", dtype=torch.bfloat16)
    value_cache = torch.zeros_like(key_cache)
    key = torch.randn(20, 8, 128, device="cuda", dtype=torch.bfloat16)
    value = torch.randn(20, 8, 128, device="cuda", dtype=torch.bfloat16)
    slots = torch.randperm(blocks * page, device="cuda")[:20]
    slots[3] = -1  # padding: skipped
    ops.reshape_and_cache(key, value, key_cache, value_cache, slots)
    flat_k, flat_v = key_cache.view(-1, 8, 128), value_cache.view(-1, 8, 128)
    live = slots >= 0
    assert torch.equal(flat_k[slots[live]], key[live]) and torch.equal(flat_v[slots[live]], value[live])
    written = torch.zeros(blocks * page, dtype=torch.bool, device="cuda")
    written[slots[live]] = True
    assert bool((flat_k[~written] == 0).all())


@requires_gpu
def test_advance_step_moves_a_paged_decode_batch_to_its_next_step(ops):
    page, seqs = 16, 37
    tables = torch.randperm(seqs * 8, device="cuda", dtype=torch.int32).view(seqs, 8)
    seq_lens = torch.randint(1, 8 * page, (seqs,), device="cuda", dtype=torch.int32)
    sampled = torch.randint(0, 128256, (seqs, 1), device="cuda")
    tokens, positions = torch.zeros(seqs, device="cuda", dtype=torch.int64), torch.zeros_like(seq_lens.long())
    slots = torch.full((seqs,), -7, device="cuda", dtype=torch.int64)
    expected_positions = seq_lens.long()
    expected_slots = tables.long().gather(1, (expected_positions // page)[:, None])[:, 0] * page + expected_positions % page
    expected_lens = seq_lens + 1
    ops.advance_step(tokens, sampled, positions, seq_lens, slots, tables, page)
    assert torch.equal(tokens, sampled[:, 0]) and torch.equal(positions, expected_positions)
    assert torch.equal(seq_lens, expected_lens) and torch.equal(slots, expected_slots)


@requires_gpu
@pytest.mark.parametrize("tokens, interleaved, table", [(1, False, torch.bfloat16), (33, False, torch.float32),
                                                       (5, True, torch.bfloat16)])
def test_rotary_and_cache_is_the_rotary_embeddings_and_the_cache_write_it_replaces(ops, tokens, interleaved, table):
    torch.manual_seed(tokens)
    heads, kv_heads, d, page, blocks = 32, 8, 128, 16, 8
    qkv = torch.randn(tokens, (heads + 2 * kv_heads) * d, device="cuda", dtype=torch.bfloat16)
    q = qkv[:, :heads * d].view(tokens, heads, d)  # views of the projection, as a decoder layer has them
    k = qkv[:, heads * d:(heads + kv_heads) * d].view(tokens, kv_heads, d)
    v = qkv[:, (heads + kv_heads) * d:].view(tokens, kv_heads, d)
    angles = torch.randn(4096, 64, device="cuda")
    cos, sin = angles.cos().to(table), angles.sin().to(table)
    positions = torch.randint(0, 4096, (tokens,), device="cuda")
    slots = torch.randperm(blocks * page, device="cuda")[:tokens]
    slots[tokens // 2] = -1  # padding: not written
    caches = [torch.zeros(blocks, page, kv_heads, d, device="cuda", dtype=torch.bfloat16) for _ in range(4)]
    q_rot, k_rot = ops.rotary_and_cache(q, k, v, cos, sin, positions, caches[0], caches[1], slots, interleaved)
    q_ref = ops.rotary_embedding(q, cos, sin, positions, interleaved)
    k_ref = ops.rotary_embedding(k, cos, sin, positions, interleaved)
    ops.reshape_and_cache(k_ref, v, caches[2], caches[3], slots)
    assert torch.equal(q_rot, q_ref) and torch.equal(k_rot, k_ref)
    assert torch.equal(caches[0], caches[2]) and torch.equal(caches[1], caches[3])

