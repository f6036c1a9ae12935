"""The candidate gather of the whole-row top-k (topk.py's topk_rows_gather_kernel) over chunk
sizes and warps, at 1, 16 and 256 rows of 128256, beside the group-maxima pass that reads the
same bytes: GPU microseconds per launch (CUDA graph of 20 launches, median of 10 replays).

  python docs/gpu-logs/topk-narrow/gather_shapes.py [--maxima]"""
import os
import sys

import torch
import triton

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks", "ops"))
import sweep_kernels as sk  # noqa: E402

N, K, GROUP = 128256, 1024, 16
MAXIMA = "--maxima" in sys.argv  # the group-maxima pass over its block sizes and warps instead


def main():
    tk = sk.module("index/topk.py")
    print(torch.cuda.get_device_name(), "torch", torch.__version__, "triton", triton.__version__, flush=True)
    for dtype in (torch.bfloat16, torch.float32):
        for rows in (1, 16, 256):
            x = torch.randn(rows, N, device="cuda", dtype=dtype)
            g = triton.cdiv(N, GROUP)
            maxima = torch.empty(rows, g, device="cuda", dtype=torch.int32)
            bound = torch.empty(rows, device="cuda", dtype=torch.int32)
            count = torch.zeros(rows, device="cuda", dtype=torch.int32)
            slots = 2048
            keys = torch.empty(rows, slots, device="cuda", dtype=torch.int32)
            positions = torch.empty(rows, slots, device="cuda", dtype=torch.int32)

            def group_max():
                tk.topk_group_max_kernel[(rows, triton.cdiv(g, 256))](x, maxima, N, g, LARGEST=True, GROUP=GROUP,
                                                                      BLOCK=256)

            group_max()
            tk.topk_row_bound_kernel[(rows,)](maxima, bound, count, g, K, BLOCK=triton.next_power_of_2(g),
                                              num_warps=16)
            torch.cuda.synchronize()
            line = f"{str(dtype)[6:]:<9} rows {rows:4d}"
            if MAXIMA:
                timed = []
                for block in (256, 512, 1024, 2048):
                    for warps in (4, 8):
                        def maxima_pass(block=block, warps=warps):
                            tk.topk_group_max_kernel[(rows, triton.cdiv(g, block))](
                                x, maxima, N, g, LARGEST=True, GROUP=GROUP, BLOCK=block, num_warps=warps)
                        timed.append((sk.gpu_us(maxima_pass), f"{block}/w{warps}"))
                group_max()
                line += "  group max " + "  ".join(f"{name} {us:.1f}" for us, name in sorted(timed))
                print(line, flush=True)
                continue
            line += f"  group max {sk.gpu_us(group_max):7.1f}"
            results = []
            for block in (1024, 2048, 4096, 8192):
                for warps in (4, 8, 16):
                    def gather(block=block, warps=warps):
                        count.zero_()
                        tk.topk_rows_gather_kernel[(rows, triton.cdiv(N, block))](
                            x, bound, count, keys, positions, N, slots, LARGEST=True, BLOCK=block, num_warps=warps)
                    gather()
                    torch.cuda.synchronize()
                    assert (count <= slots).all() and (count >= K).all(), count
                    zero = sk.gpu_us(lambda: count.zero_())
                    results.append((sk.gpu_us(gather) - zero, f"{block}/w{warps}"))
            results.sort()
            line += "  gather " + "  ".join(f"{name} {us:.1f}" for us, name in results)
            print(line, flush=True)


if __name__ == "__main__":
    main()
