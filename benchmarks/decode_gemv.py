"""Decode-step GEMMs (M = 1 to 32 tokens) at the weights of Llama-3-8B and Qwen2.5-7B against the
H200's memory bandwidth: the operator library's mm (what the decoder runs), the Hopper Gluon GEMM
(its best tile for each shape) and cuBLAS (torch.matmul), side by side in one run, each as the
bytes it must read (weight, activations) and write over its time, beside two measured limits of
the device's memory: a 2 GiB device-to-device copy (read plus written bytes over its time) and a
2 GiB read stream (a kernel that only loads and sums, the access pattern of a decode GEMM). The
copy ran at 2.3 TB/s on the H200 while decode GEMMs read at up to 4.5 TB/s in the same run, so
a decode GEMM is held against the read stream. It reads its weight once, so its bytes over time
is how near it runs to the memory's limit.

Each is timed as a CUDA graph of 20 launches (triton.testing.do_bench_cudagraph, median), each
launch on its own copy of the weight (rotated, so that the weight comes from HBM, not L2).

    python benchmarks/decode_gemv.py [--library build/lib/libtriton_jit_ops.so] [--tokens 1,8,16,32] [--json FILE]
"""
import argparse
import json
import os
import sys

import torch
import triton
import triton.language as tl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import gluon_gemm  # noqa: E402  (the linears, the Gluon GEMM's configs and launcher)


def copy_bandwidth():
    """Bytes read and written per second by a 2 GiB device-to-device copy."""
    src = torch.empty(1 << 30, dtype=torch.bfloat16, device="cuda")
    dst = torch.empty_like(src)
    ms = triton.testing.do_bench_cudagraph(lambda: dst.copy_(src))
    return 2 * src.numel() * src.element_size() / (ms * 1e-3)


@triton.jit
def read_stream_kernel(x, partial, n, BLOCK: tl.constexpr, STEPS: tl.constexpr):
    first = tl.program_id(0).to(tl.int64) * BLOCK * STEPS
    total = tl.zeros([BLOCK], tl.float32)
    for step in range(STEPS):
        i = first + step * BLOCK + tl.arange(0, BLOCK)
        total += tl.load(x + i, mask=i < n, other=0.0).to(tl.float32)
    tl.store(partial + tl.program_id(0), tl.sum(total))


def read_bandwidth():
    """Bytes per second read by a kernel that streams 2 GiB once and writes one sum per block."""
    x = torch.randn(1 << 30, dtype=torch.bfloat16, device="cuda")
    block, steps = 4096, 16
    blocks = triton.cdiv(x.numel(), block * steps)
    partial = torch.empty(blocks, dtype=torch.float32, device="cuda")
    best = min(triton.testing.do_bench_cudagraph(
        lambda: read_stream_kernel[(blocks,)](x, partial, x.numel(), BLOCK=block, STEPS=steps, num_warps=warps))
        for warps in (4, 8))
    torch.testing.assert_close(partial.sum(), x.float().sum(), rtol=1e-3, atol=1.0)
    return x.numel() * x.element_size() / (best * 1e-3)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", default=os.path.join(HERE, "..", "build", "lib", "libtriton_jit_ops.so"))
    parser.add_argument("--tokens", default="1,8,16,32")
    parser.add_argument("--json")
    options = parser.parse_args()
    if not torch.cuda.is_available():
        print("decode_gemv: skipped: no GPU on this machine")
        return 0
    torch.ops.load_library(options.library)
    import triton_jit
    triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
    gluon = gluon_gemm.runtime_kernels()
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    copy, read = copy_bandwidth(), read_bandwidth()
    print(f"{torch.cuda.get_device_name(0)}: device-to-device copy {copy / 1e12:.2f} TB/s (read + written), "
          f"read stream {read / 1e12:.2f} TB/s")
    rows = []
    for name, (N, K) in gluon_gemm.LINEARS.items():
        copies = max(2, min(8, (400 << 20) // (N * K * 2)))
        weights = [torch.randn(N, K, device="cuda", dtype=torch.bfloat16) / K**0.5 for _ in range(copies)]
        for M in (int(t) for t in options.tokens.split(",")):
            a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
            moved = (N * K + M * K + M * N) * 2
            times = {
                "cuBLAS": triton.testing.do_bench_cudagraph(gluon_gemm.rotated(
                    [lambda w=w: torch.matmul(a, w.t(), out=c) for w in weights])),
                "ours mm": triton.testing.do_bench_cudagraph(gluon_gemm.rotated(
                    [lambda w=w: torch.ops.triton_jit.mm(a, w.t()) for w in weights])),
            }
            best = None
            for label, cfg in gluon_gemm.configs(M):
                try:
                    fns = [gluon_gemm.launcher(gluon, a, w, c, cfg, sms) for w in weights]
                    ms = triton.testing.do_bench_cudagraph(gluon_gemm.rotated(fns))
                except Exception as e:  # noqa: BLE001  (a tile that does not fit: the others still count)
                    print(f"  {name} M={M} {label}: {type(e).__name__}: {str(e)[:120]}")
                    continue
                if best is None or ms < best[0]:
                    best = (ms, label)
            if best:
                times[f"Gluon ({best[1]})"] = best[0]
            for who, ms in times.items():
                rows.append(dict(linear=name, M=M, who=who, us=ms * 1e3, tbps=moved / (ms * 1e-3) / 1e12,
                                 of_copy=moved / (ms * 1e-3) / copy, of_read=moved / (ms * 1e-3) / read))
            line = ", ".join(f"{who} {ms * 1e3:.1f} us ({moved / (ms * 1e-3) / read:.0%} of the read stream)" for who, ms in times.items())
            print(f"{name:>20} M={M:>3}: {line}", flush=True)
    print(f"\n| linear | M | who | us | TB/s | of the read stream ({read / 1e12:.2f} TB/s) | of the copy ({copy / 1e12:.2f} TB/s) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['linear']} | {r['M']} | {r['who']} | {r['us']:.1f} | {r['tbps']:.2f} | {r['of_read']:.0%} | "
              f"{r['of_copy']:.0%} |")
    if options.json:
        with open(options.json, "w") as f:
            json.dump(dict(device=torch.cuda.get_device_name(0), copy_bytes_per_s=copy, read_bytes_per_s=read, torch=torch.__version__,
                           triton=triton.__version__, rows=rows), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
