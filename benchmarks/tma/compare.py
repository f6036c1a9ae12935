"""The persistent TMA matmul (tests/kernels/tma_kernels.py) launched by triton_jit from C++ with
host-side tensor descriptors (tma_matmul) and by Triton's Python runtime with
triton.tools.tensor_descriptor.TensorDescriptor, same kernel, blocks and shapes: the error of each
against torch, the time per launch of 100 back-to-back launches, and the host time per call
(descriptors built and launch queued).

    python compare.py --build build [--json out.json]
"""
import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time

BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M = 128, 128, 64, 8


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--json")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kernel_file = os.path.join(root, "tests", "kernels", "tma_kernels.py")
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=tempfile.mkdtemp())
    out = subprocess.run([os.path.join(args.build, "bin", "tma_matmul"), kernel_file], env=env, capture_output=True,
                         text=True, timeout=1200)
    if out.returncode != 0:
        sys.exit(f"tma_matmul failed:\n{out.stderr[-3000:]}")
    if out.stdout.startswith("skipped"):
        print("TMA matmul comparison: skipped: no GPU")
        return
    ours = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    import torch
    from triton.tools.tensor_descriptor import TensorDescriptor
    spec = importlib.util.spec_from_file_location("tma_kernels", kernel_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    kernel = module.matmul_tma_persistent
    sms = torch.cuda.get_device_properties(0).multi_processor_count

    def launch(a, b, c):
        m, k = a.shape
        n = b.shape[0]
        a_desc = TensorDescriptor.from_tensor(a, [BLOCK_M, BLOCK_K])
        b_desc = TensorDescriptor.from_tensor(b, [BLOCK_N, BLOCK_K])
        c_desc = TensorDescriptor.from_tensor(c, [BLOCK_M, BLOCK_N])
        tiles = triton_cdiv(m, BLOCK_M) * triton_cdiv(n, BLOCK_N)
        kernel[(min(sms, tiles),)](a_desc, b_desc, c_desc, m, n, k, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K,
                                   GROUP_M=GROUP_M, NUM_SMS=sms, num_warps=8, num_stages=3)

    rows = []
    for o in ours:
        dtype = getattr(torch, o["dtype"])
        torch.manual_seed(0)
        a = torch.randn(o["M"], o["K"], device="cuda", dtype=dtype)
        b = torch.randn(o["N"], o["K"], device="cuda", dtype=dtype)
        c = torch.empty(o["M"], o["N"], device="cuda", dtype=dtype)
        launch(a, b, c)
        want = a.float() @ b.float().t()
        error = ((c.float() - want).norm() / want.norm()).item()
        per_launch = []
        for _ in range(5):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda.synchronize()
            start.record()
            for _ in range(100):
                launch(a, b, c)
            end.record()
            end.synchronize()
            per_launch.append(start.elapsed_time(end) / 100)
        host_us = []
        for _ in range(5):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(50):
                launch(a, b, c)
            host_us.append((time.perf_counter() - t0) / 50 * 1e6)
        torch.cuda.synchronize()
        ms, host = sorted(per_launch)[2], sorted(host_us)[2]
        flops = 2.0 * o["M"] * o["N"] * o["K"]
        rows.append(dict(o, triton_ms=ms, triton_host_us=host, triton_rel_error=error,
                         tflops=flops / o["ms"] / 1e9, triton_tflops=flops / ms / 1e9))

    print("\nPersistent TMA matmul: triton_jit (C++, host descriptors) against Triton's Python launch, same kernel")
    print(f"{'dtype':9} {'M x N x K':18} {'ours ms':>9} {'Triton ms':>10} {'ours/Triton':>11} {'TFLOP/s':>8} "
          f"{'host us: ours':>14} {'Triton':>7} {'error: ours':>12} {'Triton':>8}")
    for r in rows:
        print(f"{r['dtype']:9} {r['M']}x{r['N']}x{r['K']:<8} {r['ms']:>9.4f} {r['triton_ms']:>10.4f} "
              f"{r['ms'] / r['triton_ms']:>11.3f} {r['tflops']:>8.1f} {r['host_us']:>14.2f} {r['triton_host_us']:>7.2f} "
              f"{r['rel_error']:>12.1e} {r['triton_rel_error']:>8.1e}")
    print(f"max relative error vs torch: ours {max(r['rel_error'] for r in rows):.1e}, "
          f"Triton {max(r['triton_rel_error'] for r in rows):.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


def triton_cdiv(a, b):
    return (a + b - 1) // b


if __name__ == "__main__":
    main()
