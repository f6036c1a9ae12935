"""Draws the batches of short sequences that `benchmarks/gluon_attention.py --batches` printed:
TFLOP/s of each column against batch x tokens, one panel each for not causal and causal.
    python3 plot_short_sequences.py LOG PNG"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LABELS = {"gluon-persistent": "ours: persistent (Gluon)", "gluon-pingpong": "ours: ping-pong (Gluon)",
          "triton-prefill": "ours: prefill_kernel (@triton.jit)", "sdpa": "SDPA default (cuDNN)"}


def rows(path):
    """{(causal, 'batch x tokens'): {column: TFLOP/s}} in the order printed."""
    out, names, batch = {}, [], None
    for line in open(path):
        if line.startswith("batch "):
            batch = int(re.match(r"batch (\d+)", line).group(1))
        elif line.split()[:2] == ["seq", "causal"]:
            names = line.split()[2:-2]  # the trailing "best gluon/sdpa"
        elif names and line.split() and line.split()[0].isdigit():
            tokens, causal = line.split()[:2]
            flops = [int(f) for f in re.findall(r"\(\s*(\d+)\)", line)]
            out[(causal == "1", f"{batch} x {tokens}")] = dict(zip(names, flops))
    return out


def main(log, png):
    data = rows(log)
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.8), sharey=True)
    for ax, causal in zip(axes, (False, True)):
        shapes = [shape for (c, shape) in data if c == causal]
        for name, style in (("gluon-persistent", "o-"), ("gluon-pingpong", "o:"), ("triton-prefill", "x-."),
                            ("sdpa", "s--")):
            points = [data[(causal, s)].get(name) for s in shapes]
            if any(p is not None for p in points):
                ax.plot(shapes, points, style, label=LABELS[name])
        ax.set_title(f"32/8 heads, d=128, bf16, {'causal' if causal else 'not causal'}", fontsize=9)
        ax.set_xlabel("sequences x tokens (16k tokens a batch)")
        ax.set_ylabel("TFLOP/s")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main(*sys.argv[1:])
