"""The operator library at the shapes of LLM inference (Llama-3-8B: hidden 4096, 32 heads, 8 KV
heads, head dim 128, MLP 14336, vocabulary 128256, bfloat16), in two parts, side by side in one
run:

1. shapes: each op at those shapes, ours (torch.ops.triton_jit.<op>) against ATen
   (torch.ops.aten.<op>), GPU time of a CUDA graph of 20 calls (bench_ops.gpu_ms). Weights are
   laid out as nn.Linear keeps them ([out, in], so mm sees W.t()).
2. block: one decoder layer, the final norm, the lm_head and sampling (softmax, top-k, argmax),
   written as Hugging Face's Llama writes them in eager PyTorch, with the ATen stand-ins off and
   all on (measured in turn, five times; medians), at 16 and 2048 tokens, and with --attribute
   each on alone. It prints how many calls of one block each stand-in ran itself and sent back
   to ATen (common/stand_in_policy.h); --no-routing measures the stand-ins without that (every
   call ours).

Prints tables; --json writes every number. Targets (printed): the block with every stand-in on at
most 1.0x the block without; shapes where ours is slower than ATen are listed with the ratio."""
import argparse
import json
import os
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_ops import gpu_ms  # noqa: E402

T = torch.ops.triton_jit
A = torch.ops.aten
HIDDEN, HEADS, KV_HEADS, HEAD_DIM, MLP, VOCAB = 4096, 32, 8, 128, 14336, 128256
BF16 = torch.bfloat16


def randn(*shape, dtype=BF16, scale=1.0):
    return (torch.randn(shape, device="cuda") * scale).to(dtype)


def shape_cases(quick):
    """(op, shape text, ours, aten, args, flops or bytes)."""
    cases = []
    linear = {"qkv": (HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM), "o": (HIDDEN, HIDDEN),
              "gate_up": (HIDDEN, 2 * MLP), "down": (MLP, HIDDEN), "lm_head": (HIDDEN, VOCAB)}
    tokens = (1, 16, 64, 2048) if quick else (1, 8, 16, 32, 64, 128, 256, 512, 2048, 8192)
    for name, (k, n) in linear.items():
        weight = randn(n, k, scale=0.02)
        for m in tokens:
            if name == "lm_head" and m > 2048:
                continue
            x = randn(m, k)
            cases.append(("mm", f"{name} {m}x{k}x{n}", T.mm.default, A.mm.default, (x, weight.t()),
                          ("flops", 2 * m * n * k)))
    for heads, seq, dim in ((HEADS, 128, HEAD_DIM), (HEADS, 512, HEAD_DIM), (HEADS, 2048, HEAD_DIM),
                            (HEADS, 2048, 64)):
        q, k = randn(heads, seq, dim), randn(heads, dim, seq)
        p = randn(heads, seq, seq)
        cases.append(("bmm", f"scores {heads}x{seq}x{dim}x{seq}", T.bmm.default, A.bmm.default, (q, k),
                      ("flops", 2 * heads * seq * seq * dim)))
        cases.append(("bmm", f"values {heads}x{seq}x{seq}x{dim}", T.bmm.default, A.bmm.default,
                      (p, randn(heads, seq, dim)), ("flops", 2 * heads * seq * seq * dim)))
    for rows in (1, 16, 256, 4096):
        logits = randn(rows, VOCAB, dtype=torch.float32)
        size = ("bytes", logits.numel() * 4)
        cases.append(("topk(k=50)", f"{rows}x{VOCAB} fp32", lambda x: T.topk(x, 50), lambda x: A.topk(x, 50),
                      (logits,), size))
        cases.append(("softmax", f"{rows}x{VOCAB} fp32", lambda x: T._softmax(x, -1, False),
                      lambda x: A._softmax(x, -1, False), (logits,), ("bytes", 2 * logits.numel() * 4)))
        cases.append(("log_softmax", f"{rows}x{VOCAB} fp32", lambda x: T._log_softmax(x, -1, False),
                      lambda x: A._log_softmax(x, -1, False), (logits,), ("bytes", 2 * logits.numel() * 4)))
        cases.append(("argmax", f"{rows}x{VOCAB} fp32", lambda x: T.argmax(x, -1), lambda x: A.argmax(x, -1),
                      (logits,), size))
        cases.append(("amax", f"{rows}x{VOCAB} fp32", lambda x: T.amax(x, [-1]), lambda x: A.amax(x, [-1]),
                      (logits,), size))
        bf = logits.to(BF16)
        cases.append(("topk(k=50)", f"{rows}x{VOCAB} bf16", lambda x: T.topk(x, 50), lambda x: A.topk(x, 50),
                      (bf,), ("bytes", bf.numel() * 2)))
        if rows <= 256:  # a large k: the whole-row bound (topk.cpp's run_topk_row_bound)
            cases.append(("topk(k=1024)", f"{rows}x{VOCAB} fp32", lambda x: T.topk(x, 1024),
                          lambda x: A.topk(x, 1024), (logits,), size))
            cases.append(("topk(k=1024)", f"{rows}x{VOCAB} bf16", lambda x: T.topk(x, 1024),
                          lambda x: A.topk(x, 1024), (bf,), ("bytes", bf.numel() * 2)))
    return cases


class Layer:
    """One Llama decoder layer with the head, in Hugging Face's eager style."""

    def __init__(self, tokens):
        s = 0.02
        self.tokens = tokens
        self.x = randn(tokens, HIDDEN)
        self.norm_in, self.norm_post, self.norm_final = (1 + randn(HIDDEN, scale=0.1) for _ in range(3))
        self.w_qkv = randn((HEADS + 2 * KV_HEADS) * HEAD_DIM, HIDDEN, scale=s)
        self.w_o = randn(HIDDEN, HIDDEN, scale=s)
        self.w_gate_up = randn(2 * MLP, HIDDEN, scale=s)
        self.w_down = randn(HIDDEN, MLP, scale=s)
        self.w_lm = randn(VOCAB, HIDDEN, scale=s)
        inv = 1.0 / (500000.0 ** (torch.arange(0, HEAD_DIM, 2, device="cuda").float() / HEAD_DIM))
        angles = torch.outer(torch.arange(8192, device="cuda").float(), inv)
        emb = torch.cat((angles, angles), dim=-1)
        self.cos_cache, self.sin_cache = emb.cos().to(BF16), emb.sin().to(BF16)
        self.positions = torch.arange(tokens, device="cuda")

    @staticmethod
    def rms_norm(x, weight, eps=1e-5):
        xf = x.to(torch.float32)
        variance = xf.pow(2).mean(-1, keepdim=True)
        return weight * (xf * torch.rsqrt(variance + eps)).to(x.dtype)

    @staticmethod
    def rotate_half(x):
        half = x.shape[-1] // 2
        return torch.cat((-x[..., half:], x[..., :half]), dim=-1)

    def __call__(self):
        t = self.tokens
        x = self.x
        h = self.rms_norm(x, self.norm_in)
        qkv = F.linear(h, self.w_qkv)
        q, k, v = qkv.split([HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM, KV_HEADS * HEAD_DIM], dim=-1)
        q = q.view(1, t, HEADS, HEAD_DIM).transpose(1, 2)
        k = k.view(1, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
        v = v.view(1, t, KV_HEADS, HEAD_DIM).transpose(1, 2)
        cos = F.embedding(self.positions, self.cos_cache)[None, None]
        sin = F.embedding(self.positions, self.sin_cache)[None, None]
        q = q * cos + self.rotate_half(q) * sin
        k = k * cos + self.rotate_half(k) * sin
        groups = HEADS // KV_HEADS
        k = k[:, :, None].expand(1, KV_HEADS, groups, t, HEAD_DIM).reshape(1, HEADS, t, HEAD_DIM)
        v = v[:, :, None].expand(1, KV_HEADS, groups, t, HEAD_DIM).reshape(1, HEADS, t, HEAD_DIM)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        attn = attn.transpose(1, 2).reshape(t, HIDDEN)
        x = x + F.linear(attn, self.w_o)
        h = self.rms_norm(x, self.norm_post)
        gate, up = F.linear(h, self.w_gate_up).chunk(2, dim=-1)
        x = x + F.linear(F.silu(gate) * up, self.w_down)
        logits = F.linear(self.rms_norm(x, self.norm_final), self.w_lm).float()
        probs = torch.softmax(logits / 0.7, dim=-1)
        top_p, top_i = torch.topk(probs, 50, dim=-1)
        return torch.argmax(logits, dim=-1), top_p, top_i


def block_ms(layer, stand_ins):
    T.disable_aten()
    if stand_ins:
        T.enable_aten(stand_ins)
    try:
        return gpu_ms(layer, (), {})
    finally:
        T.disable_aten()


def paired_ms(layer, variants, rounds=5):
    """Each variant's block time, the variants measured in turn `rounds` times (medians), so that a
    drift of the GPU's clock between them does not read as a difference."""
    times = {name: [] for name in variants}
    for _ in range(rounds):
        for name, stand_ins in variants.items():
            times[name].append(block_ms(layer, stand_ins))
    return {name: statistics.median(t) for name, t in times.items()}


def route_counts():
    names, ours, aten = T.stand_in_routes()
    return {name: (o, a) for name, o, a in zip(names, ours, aten)}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--library", required=True)
    parser.add_argument("--json")
    parser.add_argument("--quick", action="store_true", help="fewer shapes")
    parser.add_argument("--no-routing", action="store_true", help="every stand-in call runs ours")
    parser.add_argument("--part", choices=("shapes", "block", "both"), default="both")
    parser.add_argument("--tokens", default="16,2048")
    parser.add_argument("--attribute", action="store_true", help="also time the block with each stand-in alone")
    options = parser.parse_args()
    torch.ops.load_library(options.library)
    torch.manual_seed(0)
    if options.no_routing:
        T.set_stand_in_routing(False)
    result = {"device": torch.cuda.get_device_name(), "torch": torch.__version__, "shapes": [], "block": []}
    print(f"{result['device']}, torch {torch.__version__}; routing {'off' if options.no_routing else 'on'}")
    if options.part in ("shapes", "both"):
        print(f"\n{'op':<14}{'shape':<30}{'ours us':>10}{'ATen us':>10}{'ratio':>7}  achieved (ours / ATen)")
        for op, shape, ours, aten, args, (unit, amount) in shape_cases(options.quick):
            ours_ms, aten_ms = gpu_ms(ours, args, {}), gpu_ms(aten, args, {})
            scale = 1e12 if unit == "flops" else 1e9
            label = "TFLOP/s" if unit == "flops" else "GB/s"
            achieved = f"{amount / ours_ms / 1e-3 / scale:.1f} / {amount / aten_ms / 1e-3 / scale:.1f} {label}"
            row = {"op": op, "shape": shape, "ours_us": ours_ms * 1e3, "aten_us": aten_ms * 1e3,
                   "ratio": ours_ms / aten_ms, "achieved": achieved}
            result["shapes"].append(row)
            print(f"{op:<14}{shape:<30}{row['ours_us']:>10.2f}{row['aten_us']:>10.2f}{row['ratio']:>7.2f}  {achieved}",
                  flush=True)
            del args
        slower = [r for r in result["shapes"] if r["ratio"] > 1.0]
        print(f"\nshapes where ours is slower than ATen: {len(slower)} of {len(result['shapes'])}")
    if options.part in ("block", "both"):
        every = list(T.aten_stand_ins())
        for tokens in (int(t) for t in options.tokens.split(",")):
            layer = Layer(tokens)
            with torch.no_grad():
                expected = layer()
                T.enable_aten(every)
                layer()  # tunes and compiles
                before = route_counts()
                got = layer()
                after = route_counts()
                T.disable_aten()
            routes = {n.removeprefix("aten::"): (after[n][0] - before[n][0], after[n][1] - before[n][1])
                      for n in after if after[n] != before[n]}
            agree = float((expected[0] == got[0]).float().mean())
            paired = paired_ms(layer, {"off": [], "on": every})
            off, on = paired["off"], paired["on"]
            print(f"\nblock, {tokens} tokens: stand-ins off {off * 1e3:.1f} us, all on {on * 1e3:.1f} us, "
                  f"ratio {on / off:.3f} (target <= 1.0: {'met' if on <= off else 'missed'}); "
                  f"argmax agrees on {100 * agree:.0f}% of rows", flush=True)
            print("  calls of one block run by ours / sent back to ATen: "
                  + ", ".join(f"{n} {o}/{a}" for n, (o, a) in sorted(routes.items())))
            alone = {}
            if options.attribute:
                for name in every:
                    pair = paired_ms(layer, {"off": [], name: [name]}, rounds=1)
                    alone[name] = pair[name] / pair["off"]
                costly = sorted(alone.items(), key=lambda item: -item[1])
                print("  each stand-in alone, block time / off (the 8 largest): "
                      + ", ".join(f"{n.removeprefix('aten::')} {r:.3f}" for n, r in costly[:8]))
            result["block"].append({"tokens": tokens, "off_us": off * 1e3, "on_us": on * 1e3, "ratio": on / off,
                                    "argmax_agreement": agree, "alone": alone,
                                    "routes": routes})
            del layer
            torch.cuda.empty_cache()
    if options.json:
        with open(options.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
