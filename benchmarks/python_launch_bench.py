"""Host time per call from Python, side by side in one process: our operator through torch.ops,
Triton's own kernel[grid](...) launch of the same add kernel, torch.add and
torch.ops.aten.add.Tensor. Prints a table of median / min / max microseconds per call.

    python benchmarks/python_launch_bench.py --ops-library build/lib/libtriton_jit_ops.so
"""
import argparse
import os
import statistics
import sys
import time

import torch

N = 1024
CALLS_PER_SAMPLE = 1000
SAMPLES = 40


def per_call_us(fns):
    """Median, min and max microseconds per call of each function. The functions take turns
    batch by batch, so that a drift of the machine affects them alike."""
    for fn in fns:
        for _ in range(200):
            fn()
    torch.cuda.synchronize()
    samples = [[] for _ in fns]
    for _ in range(SAMPLES):
        for fn, out in zip(fns, samples):
            start = time.perf_counter_ns()
            for _ in range(CALLS_PER_SAMPLE):
                fn()
            out.append((time.perf_counter_ns() - start) / CALLS_PER_SAMPLE / 1000)
            torch.cuda.synchronize()
    return [(statistics.median(v), min(v), max(v)) for v in samples]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops-library", required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("python_launch_bench: skipped: no GPU on this machine")
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_kernels import add_small

    torch.ops.load_library(args.ops_library)
    x = torch.randn(N, device="cuda")
    y = torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    ours = torch.ops.triton_jit.add.Tensor
    torch.testing.assert_close(ours(x, y), x + y)

    def triton_launch():
        add_small[(1,)](x, y, out, N, BLOCK=1024)

    rows = [
        ("triton_jit add via torch.ops (Python)", lambda: ours(x, y)),
        ("Triton kernel[grid](...) (Python)", triton_launch),
        ("torch.add (Python)", lambda: torch.add(x, y)),
        ("torch.ops.aten.add.Tensor (Python)", lambda: torch.ops.aten.add.Tensor(x, y)),
    ]
    results = {}
    print(f"{'call':<42} {'median us':>10} {'min':>8} {'max':>8}")
    for (name, _), (median, low, high) in zip(rows, per_call_us([fn for _, fn in rows])):
        results[name] = median
        print(f"{name:<42} {median:>10.2f} {low:>8.2f} {high:>8.2f}")
    ours_us = results[rows[0][0]]
    print(f"Triton launch / ours: {results[rows[1][0]] / ours_us:.2f}x (target >= 2)")
    print(f"ours / torch.ops.aten.add.Tensor: {ours_us / results[rows[3][0]]:.2f}x (target <= 1)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
