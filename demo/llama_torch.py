"""The decoder of triton_jit_llama written in PyTorch, timed in eager mode and under torch.compile,
beside the C++ decoder's figures (triton_jit_llama compares with eager itself).

The model is the same network at the same shapes (the layers of Llama-3-8B or Qwen2.5-7B, random
weights, bfloat16), written as PyTorch code is written for torch.compile: a static KV cache ([batch, kv_heads, max_context, head_dim])
written at the step's position with index_copy_ and attention over the whole cache under a mask,
so that every decode step has the same shapes and compiles once. "compiled" is
torch.compile(mode="reduce-overhead"), which also replays CUDA graphs, as the C++ decode step does.

  python demo/llama_torch.py [--model llama-3-8b|qwen2.5-7b | --config config.json] [--layers 2] [--batch 1,32]
                             [--context 128[,4096]] [--ours triton_jit_llama.log]

With --ours, the decode and prefill times triton_jit_llama printed in the same run are read from
its log and set beside these, with what a decode step reads over its time."""
import argparse
import json
import math
import re
import time

import torch
import torch.nn.functional as F

# The layer shapes of each model, as its config.json gives them (triton_jit_llama's kModels).
MODELS = {
    "llama-3-8b": dict(name="Llama-3-8B", hidden=4096, heads=32, kv_heads=8, head_dim=128, mlp=14336, vocab=128256,
                       rope_theta=500000.0, eps=1e-5, qkv_bias=False, qk_norm=False, tied=False, rope_scaling=None),
    "qwen2.5-7b": dict(name="Qwen2.5-7B", hidden=3584, heads=28, kv_heads=4, head_dim=128, mlp=18944, vocab=152064,
                       rope_theta=1000000.0, eps=1e-6, qkv_bias=True, qk_norm=False, tied=False, rope_scaling=None),
}


def model_from_config(path):
    """The shapes of a Llama, Mistral, Qwen2 or Qwen3 config.json, read as triton_jit_llama --config
    reads them (demo/model_config.cpp: the same defaults; its errors are the C++ side's to give)."""
    c = json.load(open(path))
    heads = c["num_attention_heads"]
    scaling = c.get("rope_scaling") or None
    if scaling is not None and scaling.get("rope_type", scaling.get("type")) not in ("linear", "llama3"):
        scaling = None  # left out, as the C++ decoder leaves it out
    return dict(name=c.get("_name_or_path") or f"{c['model_type']} ({path})", hidden=c["hidden_size"], heads=heads,
                kv_heads=c.get("num_key_value_heads") or heads,
                head_dim=c.get("head_dim") or c["hidden_size"] // heads, mlp=c["intermediate_size"],
                vocab=c["vocab_size"], rope_theta=c.get("rope_theta") or 10000.0, eps=c.get("rms_norm_eps") or 1e-6,
                qkv_bias=c["model_type"] == "qwen2" or bool(c.get("attention_bias")),
                qk_norm=c["model_type"] == "qwen3", tied=bool(c.get("tie_word_embeddings")), rope_scaling=scaling)


def rope_inverse_frequencies(m):
    """theta^(-2i / head_dim), scaled as rope_scaling says ("linear", or Llama 3.1's "llama3")."""
    head_dim = m["head_dim"]
    inv = m["rope_theta"] ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    r = m.get("rope_scaling")
    kind = r and r.get("rope_type", r.get("type"))
    if kind == "linear":
        inv = inv / r["factor"]
    elif kind == "llama3":
        context, low, high = r["original_max_position_embeddings"], r["low_freq_factor"], r["high_freq_factor"]
        wavelength = 2 * math.pi / inv
        smooth = (context / wavelength - low) / (high - low)
        blended = (1 - smooth) * inv / r["factor"] + smooth * inv
        inv = torch.where(wavelength > context / low, inv / r["factor"],
                          torch.where(wavelength >= context / high, blended, inv))
    return inv.to(device="cuda", dtype=torch.float32)


def make_weights(m, layers, max_position):
    bf16 = {"device": "cuda", "dtype": torch.bfloat16}
    hidden, head_dim = m["hidden"], m["head_dim"]
    qkv = (m["heads"] + 2 * m["kv_heads"]) * head_dim

    def linear(out, inp):
        return torch.randn(out, inp, **bf16) * 0.02

    def norm(size=hidden):
        return 1 + torch.randn(size, **bf16) * 0.1

    w = {"m": m, "embedding": torch.randn(m["vocab"], hidden, **bf16), "layers": []}
    for _ in range(layers):
        w["layers"].append({"norm_in": norm(), "qkv": linear(qkv, hidden),
                            "qkv_bias": torch.randn(qkv, **bf16) * 0.02 if m["qkv_bias"] else None,
                            "o": linear(hidden, m["heads"] * head_dim), "norm_post": norm(),
                            "gate_up": linear(2 * m["mlp"], hidden), "down": linear(hidden, m["mlp"]),
                            "q_norm": norm(head_dim) if m.get("qk_norm") else None,
                            "k_norm": norm(head_dim) if m.get("qk_norm") else None})
    w["final_norm"] = norm()
    w["lm_head"] = w["embedding"] if m.get("tied") else linear(m["vocab"], hidden)
    inv_freq = rope_inverse_frequencies(m)
    angles = torch.outer(torch.arange(max_position, device="cuda", dtype=torch.float32), inv_freq)
    w["cos"] = torch.cat([angles.cos(), angles.cos()], -1).to(torch.bfloat16)
    w["sin"] = torch.cat([angles.sin(), angles.sin()], -1).to(torch.bfloat16)
    return w


def rms_norm(x, weight, eps):
    xf = x.float()
    return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(x.dtype)


def rotate(x, cos, sin):
    half = x.shape[-1] // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


def forward(w, keys, values, tokens, positions):
    """tokens [B, S] at positions [S] (the same for every sequence); keys/values the static caches.
    Returns the last position's logits [B, vocab]."""
    b, s = tokens.shape
    m = w["m"]
    heads, kv_heads, head_dim = m["heads"], m["kv_heads"], m["head_dim"]
    max_context = keys[0].shape[2]
    cos, sin = w["cos"][positions], w["sin"][positions]
    # query i sees cache slots up to its own position
    mask = torch.arange(max_context, device="cuda")[None, :] <= positions[:, None]
    x = F.embedding(tokens, w["embedding"])
    for layer, k_cache, v_cache in zip(w["layers"], keys, values):
        qkv = F.linear(rms_norm(x, layer["norm_in"], m["eps"]), layer["qkv"], layer["qkv_bias"])
        q, k, v = qkv.split([heads * head_dim, kv_heads * head_dim, kv_heads * head_dim], -1)
        q, k = q.view(b, s, heads, head_dim), k.view(b, s, kv_heads, head_dim)
        if layer["q_norm"] is not None:  # Qwen3: each head's query and key, before the rotation
            q, k = rms_norm(q, layer["q_norm"], m["eps"]), rms_norm(k, layer["k_norm"], m["eps"])
        q = rotate(q.transpose(1, 2), cos, sin)
        k = rotate(k.transpose(1, 2), cos, sin)
        k_cache.index_copy_(2, positions, k)
        v_cache.index_copy_(2, positions, v.view(b, s, kv_heads, head_dim).transpose(1, 2))
        a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)
        x = x + F.linear(a.transpose(1, 2).reshape(b, s, heads * head_dim), layer["o"])
        gate, up = F.linear(rms_norm(x, layer["norm_post"], m["eps"]), layer["gate_up"]).chunk(2, -1)
        x = x + F.linear(F.silu(gate) * up, layer["down"])
    return F.linear(rms_norm(x[:, -1], w["final_norm"], m["eps"]), w["lm_head"])


def time_ms(fn, repeats):
    fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(repeats):
        fn()
    end.record()
    end.synchronize()
    return start.elapsed_time(end) / repeats


def run_batch(w, layers, batch, prompt, compiled_forward):
    m = w["m"]
    max_context = prompt + 8
    cache = lambda: [torch.zeros(batch, m["kv_heads"], max_context, m["head_dim"], device="cuda",
                                 dtype=torch.bfloat16) for _ in range(layers)]
    keys, values = cache(), cache()
    for t in keys + values:  # written in place by every step: CUDA graphs keep their addresses
        torch._dynamo.mark_static_address(t)
    prompts = torch.randint(0, m["vocab"], (batch, prompt), device="cuda")
    prompt_positions = torch.arange(prompt, device="cuda")
    step_tokens = torch.randint(0, m["vocab"], (batch, 1), device="cuda")
    step_position = torch.tensor([prompt], device="cuda")
    row = {"batch": batch}
    for label, fn in (("eager", forward), ("compiled", compiled_forward)):
        started = time.time()
        reference = forward(w, keys, values, step_tokens, step_position) if label == "compiled" else None
        fn(w, keys, values, prompts, prompt_positions)
        logits = fn(w, keys, values, step_tokens, step_position)
        torch.cuda.synchronize()
        row[f"{label}_first_s"] = time.time() - started
        if reference is not None:
            row["compiled_error"] = ((logits.float() - reference.float()).abs().max()
                                     / reference.float().abs().max()).item()
        row[f"{label}_prefill_ms"] = time_ms(lambda: fn(w, keys, values, prompts, prompt_positions), 5)
        row[f"{label}_step_ms"] = time_ms(lambda: fn(w, keys, values, step_tokens, step_position), 20)
    return row


def ours_from_log(path):
    """(batch, prompt) -> prefill ms, decode step ms and the step's bandwidth, as triton_jit_llama
    printed them."""
    ours = {}
    text = open(path).read()
    for batch, tokens, ms in re.findall(r"batch (\d+): prefill (\d+) tokens: ours ([\d.]+) ms", text):
        ours.setdefault((int(batch), int(tokens) // int(batch)), {})["prefill"] = float(ms)
    for batch, context, ms in re.findall(r"batch (\d+): decode step at context (\d+): ours \(graph\) ([\d.]+) ms", text):
        ours.setdefault((int(batch), int(context) - 1), {})["step"] = float(ms)
    # the fastest of its step's forms (routed products, dependent launches, every product ours), where printed
    for batch, context, ms, form in re.findall(
            r"batch (\d+): decode step at context (\d+): fastest of ours ([\d.]+) ms \(\d+ tokens/s\): (.+)", text):
        ours.setdefault((int(batch), int(context) - 1), {}).update(step=float(ms), form=form.strip())
    for batch, context, gb, share in re.findall(
            r"batch (\d+): decode step at context (\d+) reads ([\d.]+) GB .*?ours [\d.]+ TB/s.*?, (\d+)% of the read",
            text):
        ours.setdefault((int(batch), int(context) - 1), {}).update(gb=float(gb), share=int(share))
    return ours


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", choices=sorted(MODELS), default="llama-3-8b")
    parser.add_argument("--config", help="a Llama, Mistral, Qwen2 or Qwen3 config.json (instead of --model)")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", default="1,32")
    parser.add_argument("--context", "--prompt", default="128", help="prompt lengths, comma-separated")
    parser.add_argument("--ours", help="triton_jit_llama's log from the same run")
    options = parser.parse_args()
    contexts = [int(c) for c in options.context.split(",")]
    m = model_from_config(options.config) if options.config else MODELS[options.model]
    torch.manual_seed(0)
    w = make_weights(m, options.layers, max(contexts) + 16)
    for t in [w["embedding"], w["final_norm"], w["lm_head"], w["cos"], w["sin"]] + [
            t for layer in w["layers"] for t in layer.values() if t is not None]:
        torch._dynamo.mark_static_address(t)  # weights, as parameters are: not copied into the graphs
    # one graph per (batch, context) for prefill and for decode: beyond the default limit of 8
    # recompilations, Dynamo would run the rest eagerly and the table would time eager code
    torch._dynamo.config.recompile_limit = 64
    compiled_forward = torch.compile(forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; {options.layers} layers at {m['name']} shapes, "
          f"bfloat16; torch.compile(mode='reduce-overhead')")
    ours = ours_from_log(options.ours) if options.ours else {}
    print(f"{'context':>7} {'batch':>5} {'step eager ms':>14} {'step compiled ms':>17} {'step ours ms':>13} "
          f"{'ours/compiled':>14} {'step reads GB':>14} {'ours of read stream':>20} {'prefill eager ms':>17} "
          f"{'prefill compiled ms':>20} {'prefill ours ms':>16} {'compile s':>10}")
    for prompt in contexts:
        for batch in (int(b) for b in options.batch.split(",")):
            r = run_batch(w, options.layers, batch, prompt, compiled_forward)
            o = ours.get((batch, prompt), {})
            step_ratio = f"{o['step'] / r['compiled_step_ms']:.2f}" if "step" in o else "-"
            share = f"{o['share']}%" if "share" in o else "-"
            print(f"{prompt + 1:>7} {batch:>5} {r['eager_step_ms']:>14.3f} {r['compiled_step_ms']:>17.3f} "
                  f"{o.get('step', float('nan')):>13.3f} {step_ratio:>14} {o.get('gb', float('nan')):>14.3f} "
                  f"{share:>20} {r['eager_prefill_ms']:>17.2f} {r['compiled_prefill_ms']:>20.2f} "
                  f"{o.get('prefill', float('nan')):>16.2f} {r['compiled_first_s']:>10.1f}   "
                  f"(compiled logits' error {r['compiled_error']:.4f}; ours: {o.get('form', 'routed products')})",
                  flush=True)


if __name__ == "__main__":
    main()
