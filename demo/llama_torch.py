"""The decoder of triton_jit_llama written in PyTorch, timed in eager mode and under torch.compile,
beside the C++ decoder's figures: the comparison issue 21 asks for next to the eager one that
triton_jit_llama prints itself.

The model is the same network at the same shapes (Llama-3-8B layers: hidden 4096, 32 heads, 8 KV
heads, head dim 128, MLP 14336, vocabulary 128256, random weights, bfloat16), written as PyTorch
code is written for torch.compile: a static KV cache ([batch, kv_heads, max_context, head_dim])
written at the step's position with index_copy_ and attention over the whole cache under a mask,
so that every decode step has the same shapes and compiles once. "compiled" is
torch.compile(mode="reduce-overhead"), which also replays CUDA graphs, as the C++ decode step does.

  python demo/llama_torch.py [--layers 2] [--batch 1,32] [--prompt 128] [--ours triton_jit_llama.log]

With --ours, the decode and prefill times triton_jit_llama printed in the same run are read from
its log and set beside these."""
import argparse
import re
import time

import torch
import torch.nn.functional as F

HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, VOCAB = 4096, 32, 8, 128, 14336, 128256
EPS = 1e-5


def make_weights(layers, max_position):
    bf16 = {"device": "cuda", "dtype": torch.bfloat16}

    def linear(out, inp):
        return torch.randn(out, inp, **bf16) * 0.02

    def norm():
        return 1 + torch.randn(HIDDEN, **bf16) * 0.1

    w = {"embedding": torch.randn(VOCAB, HIDDEN, **bf16), "layers": []}
    for _ in range(layers):
        w["layers"].append({"norm_in": norm(), "qkv": linear((HEADS + 2 * KV_HEADS) * HEAD_DIM, HIDDEN),
                            "o": linear(HIDDEN, HIDDEN), "norm_post": norm(), "gate_up": linear(2 * MLP, HIDDEN),
                            "down": linear(HIDDEN, MLP)})
    w["final_norm"] = norm()
    w["lm_head"] = linear(VOCAB, HIDDEN)
    inv_freq = 500000.0 ** (-torch.arange(0, HEAD_DIM, 2, device="cuda", dtype=torch.float32) / HEAD_DIM)
    angles = torch.outer(torch.arange(max_position, device="cuda", dtype=torch.float32), inv_freq)
    w["cos"] = torch.cat([angles.cos(), angles.cos()], -1).to(torch.bfloat16)
    w["sin"] = torch.cat([angles.sin(), angles.sin()], -1).to(torch.bfloat16)
    return w


def rms_norm(x, weight):
    xf = x.float()
    return weight * (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + EPS)).to(x.dtype)


def rotate(x, cos, sin):
    half = HEAD_DIM // 2
    return x * cos + torch.cat([-x[..., half:], x[..., :half]], -1) * sin


def forward(w, keys, values, tokens, positions):
    """tokens [B, S] at positions [S] (the same for every sequence); keys/values the static caches.
    Returns the last position's logits [B, vocab]."""
    b, s = tokens.shape
    max_context = keys[0].shape[2]
    cos, sin = w["cos"][positions], w["sin"][positions]
    # query i sees cache slots up to its own position
    mask = torch.arange(max_context, device="cuda")[None, :] <= positions[:, None]
    x = F.embedding(tokens, w["embedding"])
    for layer, k_cache, v_cache in zip(w["layers"], keys, values):
        qkv = F.linear(rms_norm(x, layer["norm_in"]), layer["qkv"])
        q, k, v = qkv.split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], -1)
        q = rotate(q.view(b, s, HEADS, HEAD_DIM).transpose(1, 2), cos, sin)
        k = rotate(k.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2), cos, sin)
        k_cache.index_copy_(2, positions, k)
        v_cache.index_copy_(2, positions, v.view(b, s, KV_HEADS, HEAD_DIM).transpose(1, 2))
        a = F.scaled_dot_product_attention(q, k_cache, v_cache, attn_mask=mask, enable_gqa=True)
        x = x + F.linear(a.transpose(1, 2).reshape(b, s, HIDDEN), layer["o"])
        gate, up = F.linear(rms_norm(x, layer["norm_post"]), layer["gate_up"]).chunk(2, -1)
        x = x + F.linear(F.silu(gate) * up, layer["down"])
    return F.linear(rms_norm(x[:, -1], w["final_norm"]), w["lm_head"])


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
    max_context = prompt + 8
    cache = lambda: [torch.zeros(batch, KV_HEADS, max_context, HEAD_DIM, device="cuda", dtype=torch.bfloat16)
                     for _ in range(layers)]
    keys, values = cache(), cache()
    for t in keys + values:  # written in place by every step: CUDA graphs keep their addresses
        torch._dynamo.mark_static_address(t)
    prompts = torch.randint(0, VOCAB, (batch, prompt), device="cuda")
    prompt_positions = torch.arange(prompt, device="cuda")
    step_tokens = torch.randint(0, VOCAB, (batch, 1), device="cuda")
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
    """batch -> (prefill ms, decode step ms) as triton_jit_llama printed them."""
    ours = {}
    text = open(path).read()
    for batch, ms in re.findall(r"batch (\d+): prefill \d+ tokens: ours ([\d.]+) ms", text):
        ours.setdefault(int(batch), {})["prefill"] = float(ms)
    for batch, ms in re.findall(r"batch (\d+): decode step at context \d+: ours \(graph\) ([\d.]+) ms", text):
        ours.setdefault(int(batch), {})["step"] = float(ms)
    return ours


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--batch", default="1,32")
    parser.add_argument("--prompt", type=int, default=128)
    parser.add_argument("--ours", help="triton_jit_llama's log from the same run")
    options = parser.parse_args()
    torch.manual_seed(0)
    w = make_weights(options.layers, options.prompt + 16)
    for t in [w["embedding"], w["final_norm"], w["lm_head"], w["cos"], w["sin"]] + [
            t for layer in w["layers"] for t in layer.values()]:
        torch._dynamo.mark_static_address(t)  # weights, as parameters are: not copied into the graphs
    compiled_forward = torch.compile(forward, mode="reduce-overhead", fullgraph=True, dynamic=False)
    print(f"{torch.cuda.get_device_name()}, torch {torch.__version__}; {options.layers} layers at Llama-3-8B shapes, "
          f"prompts of {options.prompt} tokens, bfloat16; torch.compile(mode='reduce-overhead')")
    ours = ours_from_log(options.ours) if options.ours else {}
    print(f"{'batch':>5} {'step eager ms':>14} {'step compiled ms':>17} {'step ours ms':>13} {'ours/compiled':>14} "
          f"{'prefill eager ms':>17} {'prefill compiled ms':>20} {'prefill ours ms':>16} {'compile s':>10}")
    for batch in (int(b) for b in options.batch.split(",")):
        r = run_batch(w, options.layers, batch, options.prompt, compiled_forward)
        o = ours.get(batch, {})
        step_ratio = f"{o['step'] / r['compiled_step_ms']:.2f}" if "step" in o else "-"
        print(f"{batch:>5} {r['eager_step_ms']:>14.3f} {r['compiled_step_ms']:>17.3f} "
              f"{o.get('step', float('nan')):>13.3f} {step_ratio:>14} {r['eager_prefill_ms']:>17.2f} "
              f"{r['compiled_prefill_ms']:>20.2f} {o.get('prefill', float('nan')):>16.2f} "
              f"{r['compiled_first_s']:>10.1f}   (compiled logits' error {r['compiled_error']:.4f})", flush=True)


if __name__ == "__main__":
    main()
