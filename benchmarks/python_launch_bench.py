"""Host time per call from Python, side by side in one process. Two tables:

1. The Python entry (triton_jit.jit): k[grid](...) with a tuple grid, a lambda grid and a
   decorated kernel, for 4 and 16 arguments, beside Triton's kernel[grid](...), Triton's
   CompiledKernel.run (its launcher with nothing in front) and a raw cuLaunchKernelEx loop issued
   from C++ in this process (the floor).
2. Our operator through torch.ops, Triton's launch of the same add kernel, torch.add and
   torch.ops.aten.add.Tensor.

Median / min / max microseconds per call.

    python benchmarks/python_launch_bench.py --ops-library build/lib/libtriton_jit_ops.so --build build
"""
import argparse
import os
import statistics
import sys
import time

import torch
import triton

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


def per_batch_us(batches, calls=CALLS_PER_SAMPLE):
    """As per_call_us, for functions that make `calls` calls each time they are called."""
    for batch in batches:
        batch(200)
    torch.cuda.synchronize()
    samples = [[] for _ in batches]
    for _ in range(SAMPLES):
        for batch, out in zip(batches, samples):
            start = time.perf_counter_ns()
            batch(calls)
            out.append((time.perf_counter_ns() - start) / calls / 1000)
            torch.cuda.synchronize()
    return [(statistics.median(v), min(v), max(v)) for v in samples]


def triton_floor(compiled, args):
    """Triton's CompiledKernel.run with the launcher's own arguments (what kernel[grid] ends in)."""
    stream = torch.cuda.current_stream().cuda_stream
    run, function, packed = compiled.run, compiled.function, compiled.packed_metadata

    def batch(calls):
        for _ in range(calls):
            run(1, 1, 1, stream, function, packed, None, None, None, *args)
    return batch


def python_entry_table(build, launch_only=False):
    sys.path.insert(0, os.path.join(build, "python"))
    sys.path.insert(0, os.path.join(build, "lib"))
    import triton_jit
    import triton_jit_raw_launch
    from bench_kernels import add_many, add_small, add_tuned

    x = torch.randn(N, device="cuda")
    y = torch.randn(N, device="cuda")
    out = torch.empty_like(x)
    small, many, tuned = triton_jit.jit(add_small), triton_jit.jit(add_many), triton_jit.jit(add_tuned)
    scalars = tuple(range(2, 14))
    small[(1,)](x, y, out, N, BLOCK=1024)
    torch.testing.assert_close(out, x + y)
    many[(1,)](x, y, out, N, *scalars, BLOCK=1024)
    torch.testing.assert_close(out, x + y + sum(scalars))
    tuned[lambda META: (triton.cdiv(N, META["BLOCK"]),)](x, y, out, N)
    torch.testing.assert_close(out, x + y)
    compiled_small = add_small[(1,)](x, y, out, N, BLOCK=1024)
    compiled_many = add_many[(1,)](x, y, out, N, *scalars, BLOCK=1024)
    add_tuned[lambda META: (triton.cdiv(N, META["BLOCK"]),)](x, y, out, N)
    stream = torch.cuda.current_stream().cuda_stream

    def raw(compiled, args):
        cubin, name = compiled.asm["cubin"], compiled.metadata.name
        warps, shared = compiled.metadata.num_warps, compiled.metadata.shared

        def batch(calls):
            triton_jit_raw_launch.launch_loop(cubin, name, warps, shared, stream, args, calls)
        return batch

    ptrs = [("p", x.data_ptr()), ("p", y.data_ptr()), ("p", out.data_ptr()), ("i", N)]

    def ours_small(calls):
        for _ in range(calls):
            small[(1,)](x, y, out, N, BLOCK=1024)

    def ours_small_lambda(calls):
        for _ in range(calls):
            small[lambda META: (1,)](x, y, out, N, BLOCK=1024)

    def ours_tuned(calls):
        for _ in range(calls):
            tuned[lambda META: (1,)](x, y, out, N)

    def ours_many(calls):
        for _ in range(calls):
            many[(1,)](x, y, out, N, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, BLOCK=1024)

    def ours_many_lambda(calls):
        for _ in range(calls):
            many[lambda META: (1,)](x, y, out, N, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, BLOCK=1024)

    def triton_small(calls):
        for _ in range(calls):
            add_small[(1,)](x, y, out, N, BLOCK=1024)

    def triton_tuned(calls):
        for _ in range(calls):
            add_tuned[lambda META: (1,)](x, y, out, N)

    def triton_many(calls):
        for _ in range(calls):
            add_many[(1,)](x, y, out, N, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, BLOCK=1024)

    rows = [
        ("raw cuLaunchKernelEx from C++, 4 args", raw(compiled_small, ptrs)),
        ("triton_jit.jit k[(1,)](...), 4 args", ours_small),
        ("triton_jit.jit k[lambda META: ...], 4 args", ours_small_lambda),
        ("triton_jit.jit autotuned+heuristics, 4 args", ours_tuned),
        ("Triton CompiledKernel.run, 4 args", triton_floor(compiled_small, (x, y, out, N, 1024))),
        ("Triton kernel[(1,)](...), 4 args", triton_small),
        ("Triton autotuned+heuristics, 4 args", triton_tuned),
        ("raw cuLaunchKernelEx from C++, 16 args", raw(compiled_many, ptrs + [("i", v) for v in scalars])),
        ("triton_jit.jit k[(1,)](...), 16 args", ours_many),
        ("triton_jit.jit k[lambda META: ...], 16 args", ours_many_lambda),
        ("Triton CompiledKernel.run, 16 args", triton_floor(compiled_many, (x, y, out, N) + scalars + (1024,))),
        ("Triton kernel[(1,)](...), 16 args", triton_many),
    ]
    if launch_only:
        rows = [row for row in rows if row[0].startswith(("raw ", "triton_jit.jit k[(1,)]"))]
    median = {}
    print(f"{'Python entry: host time per call':<46} {'median us':>10} {'min':>8} {'max':>8}")
    for (name, _), (m, low, high) in zip(rows, per_batch_us([fn for _, fn in rows])):
        median[name] = m
        print(f"{name:<46} {m:>10.2f} {low:>8.2f} {high:>8.2f}")
    if launch_only:
        for args in ("4 args", "16 args"):
            ours = median[f"triton_jit.jit k[(1,)](...), {args}"]
            print(f"{args}: ours - raw {ours - median[f'raw cuLaunchKernelEx from C++, {args}']:+.2f} us")
        return
    for args in ("4 args", "16 args"):
        floor = median[f"raw cuLaunchKernelEx from C++, {args}"]
        ours = median[f"triton_jit.jit k[(1,)](...), {args}"]
        lam = median[f"triton_jit.jit k[lambda META: ...], {args}"]
        target = 1.0 if args == "4 args" else 0.5  # real kernels take 10-40 arguments: those must not cost more
        print(f"{args}: ours - raw {ours - floor:+.2f} us (target <= +{target:.1f}), lambda grid - raw {lam - floor:+.2f} us "
              f"(target <= +1.3), Triton kernel[grid] / ours "
              f"{median[f'Triton kernel[(1,)](...), {args}'] / ours:.2f}x (target >= 3), "
              f"Triton CompiledKernel.run / ours {median[f'Triton CompiledKernel.run, {args}'] / ours:.2f}x")
    decorated = median["triton_jit.jit autotuned+heuristics, 4 args"]
    print(f"decorated - raw {decorated - median['raw cuLaunchKernelEx from C++, 4 args']:+.2f} us (target <= +1.3), "
          f"Triton decorated / ours {median['Triton autotuned+heuristics, 4 args'] / decorated:.2f}x")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ops-library", required=True)
    parser.add_argument("--build", default=None, help="the build tree (default: the ops library's parent's parent)")
    parser.add_argument("--launch-only", action="store_true",
                        help="only the raw launch and k[(1,)] rows, for runs alternated between two builds")
    args = parser.parse_args()
    if not torch.cuda.is_available():
        print("python_launch_bench: skipped: no GPU on this machine")
        return 0
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from bench_kernels import add_small

    python_entry_table(args.build or os.path.dirname(os.path.dirname(os.path.abspath(args.ops_library))),
                       args.launch_only)
    print()
    if args.launch_only:
        return 0

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
