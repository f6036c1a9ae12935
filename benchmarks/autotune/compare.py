"""Autotuning compared with Triton's own: the same matmul (tests/kernels/gpu_decorated.py, 5
configs, an EVEN_K heuristic) and shapes, tuned by triton_jit from C++ (tune_matmul) and by
Triton's Python Autotuner, each with an empty Triton cache (so both first calls compile). Then the
two chosen configs are timed side by side with triton.testing.do_bench.

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


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build", required=True)
    parser.add_argument("--json")
    args = parser.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    kernel_file = os.path.join(root, "tests", "kernels", "gpu_decorated.py")

    ours_env = dict(os.environ, TRITON_CACHE_DIR=tempfile.mkdtemp(), TRITON_JIT_CACHE_DIR=tempfile.mkdtemp())
    out = subprocess.run([os.path.join(args.build, "bin", "tune_matmul"), kernel_file], env=ours_env,
                         capture_output=True, text=True, timeout=1200)
    if out.returncode != 0:
        sys.exit(f"tune_matmul failed:\n{out.stderr[-3000:]}")
    if out.stdout.startswith("skipped"):
        print("autotune comparison: skipped: no GPU")
        return
    ours = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]

    os.environ["TRITON_CACHE_DIR"] = tempfile.mkdtemp()  # Triton's first calls compile too
    import torch
    import triton
    spec = importlib.util.spec_from_file_location("gpu_decorated", kernel_file)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    tuned = module.matmul_kernel
    jit = tuned.fn.fn  # the kernel under its decorators
    configs = tuned.configs

    rows = []
    for o in ours:
        dtype = getattr(torch, o["dtype"])
        m, n, k = o["M"], o["N"], o["K"]
        torch.manual_seed(0)
        a = torch.randn(m, k, device="cuda", dtype=dtype)
        b = torch.randn(k, n, device="cuda", dtype=dtype)
        c = torch.empty(m, n, device="cuda", dtype=dtype)
        grid = lambda meta: (triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"]),)  # noqa: E731
        torch.cuda.synchronize()
        started = time.perf_counter()
        tuned[grid](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1), c.stride(0), c.stride(1))
        torch.cuda.synchronize()
        triton_first = time.perf_counter() - started
        theirs = configs.index(tuned.best_config)

        def time_config(index):
            cfg = configs[index]
            kw = dict(cfg.kwargs, EVEN_K=k % cfg.kwargs["BLOCK_K"] == 0, num_warps=cfg.num_warps,
                      num_stages=cfg.num_stages)
            g = (triton.cdiv(m, kw["BLOCK_M"]) * triton.cdiv(n, kw["BLOCK_N"]),)
            call = lambda: jit[g](a, b, c, m, n, k, a.stride(0), a.stride(1), b.stride(0), b.stride(1),  # noqa: E731
                                  c.stride(0), c.stride(1), **kw)
            return triton.testing.do_bench(call, quantiles=[0.5])

        # Alternate the two several times and keep each one's median: the VM drifts.
        ours_ms, theirs_ms = [], []
        for _ in range(3):
            ours_ms.append(time_config(o["config"]))
            theirs_ms.append(time_config(theirs))
        ours_ms, theirs_ms = sorted(ours_ms)[1], sorted(theirs_ms)[1]
        flops = 2.0 * m * n * k
        rows.append(dict(o, triton_config=theirs, ours_ms=ours_ms, triton_ms=theirs_ms, ratio=ours_ms / theirs_ms,
                         triton_first_call_s=triton_first, tflops=flops / ours_ms / 1e9))

    print("\nAutotuning: triton_jit (C++) against Triton's Autotuner (Python), same kernel, configs and shapes")
    print(f"{'dtype':9} {'M x N x K':18} {'Triton cfg':>10} {'ours cfg':>8} {'Triton ms':>10} {'ours ms':>9} "
          f"{'ours/Triton':>11} {'TFLOP/s':>8} {'tune s: Triton':>15} {'ours':>6}")
    for r in rows:
        print(f"{r['dtype']:9} {r['M']}x{r['N']}x{r['K']:<8} {r['triton_config']:>10} {r['config']:>8} "
              f"{r['triton_ms']:>10.4f} {r['ours_ms']:>9.4f} {r['ratio']:>11.3f} {r['tflops']:>8.1f} "
              f"{r['triton_first_call_s']:>15.2f} {r['first_call_s']:>6.2f}")
    same = sum(r["config"] == r["triton_config"] for r in rows)
    within = sum(r["ratio"] <= 1.05 for r in rows)
    faster_tuning = sum(r["first_call_s"] <= r["triton_first_call_s"] for r in rows)
    print(f"same config as Triton: {same}/{len(rows)}; within 5% of Triton's choice: {within}/{len(rows)}; "
          f"first call no slower than Triton's: {faster_tuning}/{len(rows)}; "
          f"max relative error vs torch: {max(r['rel_error'] for r in rows):.1e}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
