"""A Llama-style model step in eager PyTorch whose ops are a real library's Triton kernels, with
Triton's own launch and with `triton_jit.install()`: the outputs compared and the time per
decode step (batch 1) and per small prefill side by side, in alternating rounds. Eager on
purpose: a step's host work is what install() changes.

- `--library liger`: the norms, rotary embedding and gated activation are Liger-Kernel's
  functions, called as Liger's own modules call them (the same kernels and configs both ways,
  so the outputs are bit for bit the same);
- `--library flaggems`: the model is plain torch ops run under `flag_gems.use_gems()`, so every
  op FlagGems has is its Triton kernel. Its autotuned GEMMs and attention may pick other configs
  on either launch, and a bf16 model of 16 layers carries such a rounding difference to its
  output, so each launch's output is held to the same model on ATen: install()'s may be no
  further from it than Triton's own launch's (1.5x, or 0.1 where Triton's is closer).

    python benchmarks/library_decode_step.py [--library liger|flaggems] [--layers 16 --hidden 2048
        --heads 32 --kv-heads 8 --mlp 8192] [--context 128] [--prefill 16] [--steps 32] [--rounds 7] [--json FILE]
The defaults are Llama-3.2-1B's shapes without the embedding and lm_head.
"""
import contextlib
import argparse
import json
import statistics
import sys
import time

import torch
import torch.nn.functional as F

import triton_jit


def liger_ops():
    from liger_kernel.ops.rms_norm import LigerRMSNormFunction
    from liger_kernel.ops.rope import LigerRopeFunction
    from liger_kernel.ops.swiglu import LigerSiLUMulFunction
    return (lambda x, w: LigerRMSNormFunction.apply(x, w, 1e-5, 0.0, "llama", False), LigerRopeFunction.apply,
            LigerSiLUMulFunction.apply)


def torch_ops():
    def rotate_half(t):
        half = t.shape[-1] // 2
        return torch.cat([-t[..., half:], t[..., :half]], dim=-1)

    def rope(q, k, cos, sin):
        cos, sin = cos[:, None], sin[:, None]
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
    return (lambda x, w: F.rms_norm(x, (x.shape[-1],), w, 1e-5), rope, lambda g, u: F.silu(g) * u)


class Model:
    def __init__(self, a, ops, device="cuda", dtype=torch.bfloat16):
        self.ops = ops
        g = torch.Generator(device=device).manual_seed(0)
        self.a = a
        self.head_dim = a.hidden // a.heads
        qkv = (a.heads + 2 * a.kv_heads) * self.head_dim

        def weight(*shape):
            return torch.randn(*shape, device=device, dtype=dtype, generator=g) / shape[-1] ** 0.5
        self.layers = [dict(attn_norm=1 + weight(a.hidden) / 10, qkv=weight(qkv, a.hidden),
                            o=weight(a.hidden, a.heads * self.head_dim), mlp_norm=1 + weight(a.hidden) / 10,
                            gate_up=weight(2 * a.mlp, a.hidden), down=weight(a.hidden, a.mlp))
                       for _ in range(a.layers)]
        self.norm = 1 + weight(a.hidden) / 10
        limit = max(a.context, a.prefill) + a.steps + 1
        self.k_cache = [torch.zeros(1, a.kv_heads, limit, self.head_dim, device=device, dtype=dtype)
                        for _ in range(a.layers)]
        self.v_cache = [torch.zeros_like(c) for c in self.k_cache]
        inv = 1.0 / (500000.0 ** (torch.arange(0, self.head_dim, 2, device=device).float() / self.head_dim))
        angles = torch.outer(torch.arange(limit, device=device).float(), inv)
        angles = torch.cat([angles, angles], dim=-1)
        self.cos, self.sin = angles.cos().to(dtype)[None], angles.sin().to(dtype)[None]

    def forward(self, x, start):
        """x: [1, tokens, hidden] at positions [start, start + tokens)."""
        rms_norm, rope, silu_mul = self.ops
        a, hd = self.a, self.head_dim
        tokens = x.shape[1]
        end = start + tokens
        cos, sin = self.cos[:, start:end], self.sin[:, start:end]
        for layer, k_cache, v_cache in zip(self.layers, self.k_cache, self.v_cache):
            h = rms_norm(x, layer["attn_norm"])
            qkv = F.linear(h, layer["qkv"])
            q, k, v = qkv.split([a.heads * hd, a.kv_heads * hd, a.kv_heads * hd], dim=-1)
            q = q.view(1, tokens, a.heads, hd).transpose(1, 2)
            k = k.view(1, tokens, a.kv_heads, hd).transpose(1, 2)
            v = v.view(1, tokens, a.kv_heads, hd).transpose(1, 2)
            q, k = rope(q, k, cos, sin)
            k_cache[:, :, start:end] = k
            v_cache[:, :, start:end] = v
            attn = F.scaled_dot_product_attention(q, k_cache[:, :, :end], v_cache[:, :, :end], is_causal=tokens > 1,
                                                  enable_gqa=True)
            x = x + F.linear(attn.transpose(1, 2).reshape(1, tokens, a.heads * hd), layer["o"])
            h = rms_norm(x, layer["mlp_norm"])
            gate, up = F.linear(h, layer["gate_up"]).chunk(2, dim=-1)
            x = x + F.linear(silu_mul(gate.contiguous(), up.contiguous()), layer["down"])
        return rms_norm(x, self.norm)


def run(model, a, x_prompt, x_steps, scope):
    with scope():
        return timed(model, a, x_prompt, x_steps)


def timed(model, a, x_prompt, x_steps):
    """A prefill of the prompt at positions [0, prefill), then a decode step per token from position
    `context` on (the cache between holds zeros: the attention reads a context that long); the last
    step's output, the prefill's time and a step's."""
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    model.forward(x_prompt, 0)
    torch.cuda.synchronize()
    t1 = time.perf_counter()
    out = None
    for i in range(a.steps):
        out = model.forward(x_steps[:, i:i + 1], max(a.context, a.prefill) + i)
    torch.cuda.synchronize()
    t2 = time.perf_counter()
    return out, (t1 - t0) * 1e3, (t2 - t1) / a.steps * 1e3


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name, default in (("layers", 16), ("hidden", 2048), ("heads", 32), ("kv-heads", 8), ("mlp", 8192),
                          ("context", 128), ("prefill", 16), ("steps", 32), ("rounds", 7)):
        p.add_argument(f"--{name}", type=int, default=default)
    p.add_argument("--library", choices=("liger", "flaggems"), default="liger")
    p.add_argument("--json")
    a = p.parse_args()
    if not torch.cuda.is_available():
        print("library_decode_step: skipped: no GPU on this machine")
        return 0
    try:
        if a.library == "liger":
            ops, scope = liger_ops(), contextlib.nullcontext
        else:
            import flag_gems
            ops, scope = torch_ops(), flag_gems.use_gems
    except ImportError as error:
        print(f"library_decode_step: skipped {a.library}: {error}")
        return 0
    torch.manual_seed(0)
    with torch.no_grad():
        model = Model(a, ops)
        x_prompt = torch.randn(1, a.prefill, a.hidden, device="cuda", dtype=torch.bfloat16)
        x_steps = torch.randn(1, a.steps, a.hidden, device="cuda", dtype=torch.bfloat16)
        outs, times = {}, {"triton": ([], []), "install": ([], [])}
        if a.library == "flaggems":
            outs["aten"] = run(model, a, x_prompt, x_steps, contextlib.nullcontext)[0]
        for mode in ("triton", "install"):  # compile and warm both
            (triton_jit.install if mode == "install" else triton_jit.uninstall)()
            outs[mode] = run(model, a, x_prompt, x_steps, scope)[0]
        for _ in range(a.rounds):
            for mode in ("triton", "install"):
                (triton_jit.install if mode == "install" else triton_jit.uninstall)()
                _, prefill_ms, step_ms = run(model, a, x_prompt, x_steps, scope)
                times[mode][0].append(prefill_ms)
                times[mode][1].append(step_ms)
        triton_jit.uninstall()
    def distance(x, y):
        return (x.float() - y.float()).abs().max().item()
    difference = distance(outs["triton"], outs["install"])
    if a.library == "liger":
        equal = torch.equal(outs["triton"], outs["install"])
        verdict = f"outputs {'equal' if equal else 'DIFFER'} (largest difference {difference:.3g})"
    else:
        theirs, ours = distance(outs["triton"], outs["aten"]), distance(outs["install"], outs["aten"])
        equal = ours <= max(1.5 * theirs, 0.1)
        verdict = (f"outputs {'as close' if equal else 'FURTHER'} from the model on ATen: Triton's launch "
                   f"{theirs:.3g}, install() {ours:.3g} (largest differences; between the two {difference:.3g})")
    med = {m: (statistics.median(t[0]), statistics.median(t[1])) for m, t in times.items()}
    print(f"Llama-style model, {a.layers} layers, hidden {a.hidden}, {a.heads}/{a.kv_heads} heads, MLP {a.mlp}, bf16, "
          f"eager; {'Liger' if a.library == 'liger' else 'FlagGems'}'s kernels; median of {a.rounds} alternating rounds")
    print("| step | Triton's launch, ms | install(), ms | speedup |")
    print("|---|---|---|---|")
    print(f"| decode, batch 1 (context {a.context}) | {med['triton'][1]:.3f} | {med['install'][1]:.3f} | "
          f"{med['triton'][1] / med['install'][1]:.2f}x |")
    print(f"| prefill of {a.prefill} tokens | {med['triton'][0]:.3f} | {med['install'][0]:.3f} | "
          f"{med['triton'][0] / med['install'][0]:.2f}x |")
    print(verdict)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(dict(args=vars(a), times=times, median=med, equal=equal, difference=difference), f, indent=1)
    return 0 if equal else 1


if __name__ == "__main__":
    sys.exit(main())
