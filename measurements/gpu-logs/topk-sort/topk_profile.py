# Where the time of top-k (k=1024, rows of 128256) goes: each kernel's GPU time (profiler, eager)
# and the whole call in a CUDA graph of 20 calls, ours and ATen's.
import sys, torch
from torch.profiler import profile, ProfilerActivity
torch.ops.load_library(sys.argv[1])
torch.manual_seed(0)

def graph_us(fn, calls=20, replays=20):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3): fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls): fn()
    g.replay(); torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    best = 1e30
    for _ in range(5):
        a.record()
        for _ in range(replays): g.replay()
        b.record(); torch.cuda.synchronize()
        best = min(best, a.elapsed_time(b) * 1000 / (calls * replays))
    return best

for dtype in (torch.bfloat16, torch.float32):
    for rows in (1, 16, 256):
        x = torch.randn(rows, 128256, device="cuda", dtype=dtype)
        for name, fn in (("ours", lambda: torch.ops.triton_jit.topk(x, 1024)), ("aten", lambda: torch.topk(x, 1024))):
            t = graph_us(fn)
            for _ in range(3): fn()
            torch.cuda.synchronize()
            with profile(activities=[ProfilerActivity.CUDA]) as p:
                for _ in range(20): fn()
                torch.cuda.synchronize()
            kernels = [(e.key, e.device_time_total / e.count, e.count // 20) for e in p.key_averages() if e.device_time_total > 0]
            total = sum(us * c for _, us, c in kernels)
            print(f"{str(dtype)[6:]} rows={rows} {name}: graph {t:.2f} us/call, kernels sum {total:.2f} us")
            for k, us, c in sorted(kernels, key=lambda r: -r[1] * r[2]):
                print(f"    {us:8.2f} us x{c}  {k[:90]}")
