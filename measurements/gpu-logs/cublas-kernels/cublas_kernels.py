"""Which kernel does cuBLAS run where ours lose? The products still routed to ATen (decode qkv/o at
16-64 rows, every linear at 128-512 rows, attention's batched products at 512 tokens) are run
through torch under the profiler, and each kernel's name (nvjet names carry the tile, the cluster
and a split-K tag), grid, block, shared memory and registers are printed beside its time. With
--ncu-pass the same calls run once each, for Nsight Compute to read the launch and throughput
counters of cuBLAS's kernels and of the library's persistent kernel side by side.

  python docs/gpu-logs/cublas-kernels/cublas_kernels.py [--rows 16,32,64,128,256,512]
  ncu --clock-control none --profile-from-start off --section LaunchStats --section SpeedOfLight \\
      python docs/gpu-logs/cublas-kernels/cublas_kernels.py --ncu-pass"""
import argparse
import collections
import json
import os
import sys
import tempfile

import torch
import triton
from torch.profiler import ProfilerActivity, profile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "ops"))
import sweep_kernels as sk  # noqa: E402

BATCHED = {"scores 32x512x128x512": (32, 512, 128, 512), "values 32x512x512x128": (32, 512, 512, 128),
           "scores 32x2048x128x2048": (32, 2048, 128, 2048)}


def products(rows, linears):
    for name in linears:
        n, k = sk.LINEARS[name]
        for m in rows:
            yield f"{name} {m}x{k}x{n}", (m, k, n)
    for name, shape in BATCHED.items():
        yield name, shape


def make_call(shape):
    if len(shape) == 3:
        m, k, n = shape
        x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02
        return lambda: torch.mm(x, w.t()), (x, w)
    b, m, k, n = shape
    x = torch.randn(b, m, k, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(b, k, n, device="cuda", dtype=torch.bfloat16)
    return lambda: torch.bmm(x, y), (x, y)


def kernels_of(call, repeats=20):
    """(name, grid, block, shared memory, registers, mean µs) of each kernel a call launched."""
    for _ in range(3):
        call()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(repeats):
            call()
        torch.cuda.synchronize()
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        path = f.name
    prof.export_chrome_trace(path)
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    os.unlink(path)
    seen = collections.OrderedDict()
    for e in events:
        if e.get("cat") != "kernel":
            continue
        a = e.get("args", {})
        key = (e["name"], tuple(a.get("grid", ())), tuple(a.get("block", ())), a.get("shared memory"),
               a.get("registers per thread"))
        seen.setdefault(key, []).append(e.get("dur", 0.0))
    return [(*key, sum(d) / len(d), len(d)) for key, d in seen.items()]


def persistent_call(shape):
    """The library's persistent TMA kernel on a single product, with its autotuned config."""
    m, k, n = shape
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    tma = sk.module("matmul/matmul_tma.py").matmul_tma_kernel
    x = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
    b = (torch.randn(n, k, device="cuda", dtype=torch.bfloat16) * 0.02).t()
    c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
    bm = triton.next_power_of_2(m)

    def call():
        tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
            x, b, c, c, m, n, k, 1, m * k, x.stride(0), n * k, b.stride(0), b.stride(1), m * n, c.stride(0),
            0, 0, 0, 1.0, 0.0, bm, HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)
    return call, tma


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rows", default="16,32,64,128,256,512")
    parser.add_argument("--linears", default="qkv,o,down,gate_up")
    parser.add_argument("--ncu-pass", action="store_true", help="each call once, after warm-up, for ncu")
    args = parser.parse_args()
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    rows = [int(r) for r in args.rows.split(",")]
    linears = args.linears.split(",")
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__,
          "cuda", torch.version.cuda, flush=True)
    if args.ncu_pass:
        # Autotuning and warm-up first, outside the profiled range, so that ncu reads one launch of
        # each product (run ncu with --profile-from-start off).
        calls = []
        for label, shape in products(rows, linears):
            call, keep = make_call(shape)
            call()
            calls.append((label, call, keep))
            if len(shape) == 3 and shape[0] >= 128:
                ours, tma = persistent_call(shape)
                ours()
                torch.cuda.synchronize()
                print(f"{label}: persistent config {tma.best_config}", flush=True)
                calls.append((label + " persistent", ours, tma))
        torch.cuda.synchronize()
        torch.cuda.profiler.start()
        for label, call, _ in calls:
            call()
            torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        for label, _, _ in calls:
            print(f"profiled: {label}", flush=True)
        return
    print(f"{'product':<26}{'µs':>7}  {'grid':<14}{'block':<12}{'smem':>7}{'regs':>5}  kernel", flush=True)
    for label, shape in products(rows, linears):
        call, _ = make_call(shape)
        for name, grid, block, smem, regs, us, count in kernels_of(call):
            print(f"{label:<26}{us:7.1f}  {str(list(grid)):<14}{str(list(block)):<12}{smem or 0:>7}{regs or 0:>5}  "
                  f"{name[:140]}", flush=True)
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
