"""The attention ops at Llama-3-8B shapes (32 query heads, 8 KV heads, head dim 128, bfloat16),
side by side in one run with what a PyTorch user would call:

- prefill: torch.ops.triton_jit.flash_attn_varlen (causal) against scaled_dot_product_attention
  as a user calls it (the backend it picks by default: cuDNN on the H200), and restricted to its
  flash and cuDNN backends, context 128 to 32k (batches of 16k tokens where they fit);
- decode: torch.ops.triton_jit.paged_attention over a paged cache (block size 16) against eager
  decoding as a PyTorch program would write it: gather the sequence's pages, then SDPA.

GPU time of a CUDA graph of 20 calls (bench_ops.gpu_ms). Targets (printed): prefill at or below
SDPA's default time from 1k tokens up, decode at most 1.0x the eager time."""
import argparse
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ops import gpu_ms  # noqa: E402

HEADS, KV_HEADS, HEAD_DIM, PAGE = 32, 8, 128, 16
T = torch.ops.triton_jit


def prefill_rows(contexts, dtype):
    rows = []
    for ctx in contexts:
        batch = max(1, 16384 // ctx)
        q = torch.randn(batch, ctx, HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        k = torch.randn(batch, ctx, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        v = torch.randn(batch, ctx, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
        cu = torch.arange(0, (batch + 1) * ctx, ctx, device="cuda", dtype=torch.int32)
        flat = [t.view(batch * ctx, t.shape[2], HEAD_DIM) for t in (q, k, v)]

        def ours():
            return T.flash_attn_varlen(*flat, cu, cu, ctx, ctx, causal=True)

        # SDPA's flash backend takes [batch, heads, seq, head_dim] views; the KV heads repeated
        # ahead of time where it does not take grouped heads itself.
        qt, kt, vt = (t.transpose(1, 2) for t in (q, k, v))
        try:
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, enable_gqa=True)
            gqa, kx, vx = True, kt, vt
        except RuntimeError:
            gqa = False
            kx = kt.repeat_interleave(HEADS // KV_HEADS, 1)
            vx = vt.repeat_interleave(HEADS // KV_HEADS, 1)

        def sdpa():
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                return F.scaled_dot_product_attention(qt, kx, vx, is_causal=True, enable_gqa=gqa)

        def default():
            return F.scaled_dot_product_attention(qt, kt, vt, is_causal=True, enable_gqa=True)

        def cudnn():
            with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                return F.scaled_dot_product_attention(qt, kx, vx, is_causal=True, enable_gqa=gqa)

        error = (ours().view(batch, ctx, HEADS, HEAD_DIM).float() - sdpa().transpose(1, 2).float()).abs().max().item()
        ours_ms, sdpa_ms, default_ms = gpu_ms(ours, (), {}), gpu_ms(sdpa, (), {}), gpu_ms(default, (), {})
        try:
            cudnn_ms = gpu_ms(cudnn, (), {})
        except RuntimeError:  # a torch without the cuDNN backend for these shapes
            cudnn_ms = float("nan")
        flops = 4 * batch * HEADS * ctx * ctx * HEAD_DIM / 2
        rows.append({"context": ctx, "batch": batch, "ours_us": ours_ms * 1e3, "sdpa_us": sdpa_ms * 1e3,
                     "default_us": default_ms * 1e3, "cudnn_us": cudnn_ms * 1e3,
                     "ours_tflops": flops / ours_ms / 1e9, "sdpa_tflops": flops / sdpa_ms / 1e9,
                     "default_tflops": flops / default_ms / 1e9, "time_ratio_default": ours_ms / default_ms,
                     "throughput_ratio": sdpa_ms / ours_ms, "max_error": error, "sdpa_gqa": gqa})
        del q, k, v, flat, kx, vx
        torch.cuda.empty_cache()
    return rows


def decode_rows(batches, contexts, dtype):
    rows = []
    for batch in batches:
        for ctx in contexts:
            pages = (ctx + PAGE - 1) // PAGE
            blocks = batch * pages
            key_cache = torch.randn(blocks, PAGE, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
            value_cache = torch.randn(blocks, PAGE, KV_HEADS, HEAD_DIM, device="cuda", dtype=dtype)
            tables = torch.randperm(blocks, device="cuda").view(batch, pages).to(torch.int32)
            lens = torch.full((batch,), ctx, device="cuda", dtype=torch.int32)
            q = torch.randn(batch, HEADS, HEAD_DIM, device="cuda", dtype=dtype)
            positions = torch.arange(ctx, device="cuda")
            slots = (tables.long()[:, positions // PAGE] * PAGE + positions % PAGE)  # [batch, ctx]

            def ours():
                return T.paged_attention(q, key_cache, value_cache, tables, lens)

            def eager():
                k = key_cache.view(-1, KV_HEADS, HEAD_DIM)[slots].transpose(1, 2)  # [batch, kv, ctx, d]
                v = value_cache.view(-1, KV_HEADS, HEAD_DIM)[slots].transpose(1, 2)
                return F.scaled_dot_product_attention(q[:, :, None], k, v, enable_gqa=True)[:, :, 0]

            error = (ours().float() - eager().float()).abs().max().item()
            ours_ms, eager_ms = gpu_ms(ours, (), {}), gpu_ms(eager, (), {})
            bytes_read = 2 * batch * ctx * KV_HEADS * HEAD_DIM * key_cache.element_size()
            rows.append({"batch": batch, "context": ctx, "ours_us": ours_ms * 1e3, "eager_us": eager_ms * 1e3,
                         "ratio": ours_ms / eager_ms, "ours_gbs": bytes_read / ours_ms / 1e6, "max_error": error})
            del key_cache, value_cache, slots
            torch.cuda.empty_cache()
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", required=True)
    parser.add_argument("--json")
    parser.add_argument("--contexts", default="128,512,1024,2048,4096,8192,16384,32768")
    parser.add_argument("--decode-contexts", default="128,1024,4096,32768")
    options = parser.parse_args()
    torch.ops.load_library(options.library)
    torch.manual_seed(0)
    dtype = torch.bfloat16
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; {HEADS} heads, {KV_HEADS} KV heads, "
          f"head dim {HEAD_DIM}, bfloat16")
    prefill = prefill_rows([int(c) for c in options.contexts.split(",")], dtype)
    print(f"\nprefill (causal)\n{'context':>8}{'batch':>6}{'ours us':>11}{'default us':>11}{'cuDNN us':>11}"
          f"{'flash us':>11}{'ours TF/s':>11}{'dflt TF/s':>11}{'ours/dflt':>11}{'max err':>9}")
    for r in prefill:
        print(f"{r['context']:>8}{r['batch']:>6}{r['ours_us']:>11.1f}{r['default_us']:>11.1f}{r['cudnn_us']:>11.1f}"
              f"{r['sdpa_us']:>11.1f}{r['ours_tflops']:>11.1f}{r['default_tflops']:>11.1f}"
              f"{r['time_ratio_default']:>11.2f}{r['max_error']:>9.4f}")
    decode = decode_rows((1, 32), [int(c) for c in options.decode_contexts.split(",")], dtype)
    print(f"\npaged decode (block size {PAGE})\n{'batch':>6}{'context':>8}{'ours us':>10}{'eager us':>10}"
          f"{'ratio':>7}{'ours GB/s':>11}{'max err':>9}")
    for r in decode:
        print(f"{r['batch']:>6}{r['context']:>8}{r['ours_us']:>10.1f}{r['eager_us']:>10.1f}{r['ratio']:>7.2f}"
              f"{r['ours_gbs']:>11.0f}{r['max_error']:>9.4f}")
    slow_prefill = [r for r in prefill if r["context"] >= 1024 and r["time_ratio_default"] > 1.0]
    slow_decode = [r for r in decode if r["ratio"] > 1.0]
    timed = [r for r in prefill if r["context"] >= 1024]
    print(f"\ntargets: prefill <= 1.0x SDPA default's time from 1k: {len(timed) - len(slow_prefill)}/{len(timed)} met"
          + ("; missed at " + ", ".join(f"{r['context']} ({r['time_ratio_default']:.2f}x)" for r in slow_prefill)
             if slow_prefill else ""))
    print(f"targets: paged decode <= 1.0x eager gather + SDPA: {len(decode) - len(slow_decode)}/{len(decode)} met"
          + ("; missed at " + ", ".join(f"{r['batch']}x{r['context']} ({r['ratio']:.2f}x)" for r in slow_decode)
             if slow_decode else ""))
    if options.json:
        with open(options.json, "w") as f:
            json.dump({"device": torch.cuda.get_device_name(), "torch": torch.__version__, "prefill": prefill,
                       "decode": decode}, f, indent=1)


if __name__ == "__main__":
    main()
