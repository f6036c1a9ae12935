# The two costliest launches of the whole-row top-k at few rows: the sort of 2048 candidate words
# (num_warps 4/8/16; 64-bit words against 32-bit keys) and the bound (7 digit passes against 4).
import sys, torch, triton, triton.language as tl
sys.path.insert(0, "operators/index")  # run from the repository root
import topk as T

def graph_us(fn, calls=20, replays=20):
    for _ in range(3): fn()
    torch.cuda.synchronize()
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

@triton.jit
def sort32_kernel(x_ptr, out_ptr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    k = tl.load(x_ptr + row * BLOCK + offs).to(tl.uint32, bitcast=True)
    k = tl.sort(k, descending=True)
    tl.store(out_ptr + row * BLOCK + offs, k.to(tl.int32, bitcast=True))

@triton.jit
def bound4_kernel(maxima_ptr, bound_ptr, count_ptr, G, K, BLOCK: tl.constexpr, PASSES: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    live = offs < G
    keys = tl.load(maxima_ptr + row * G + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    prefix = tl.zeros([], tl.uint32)
    k_left = K
    for i in tl.static_range(0, PASSES):
        prefix, k_left = T._digit_pass(keys, live, prefix, k_left, 32 - 5 * (i + 1), 5, i == 0)
    tl.store(bound_ptr + row, prefix.to(tl.int32, bitcast=True))
    tl.store(count_ptr + row, 0)

torch.manual_seed(0)
K, SLOTS = 1024, 2048
for rows in (1, 16, 256):
    keys = torch.randint(-2**31, 2**31 - 1, (rows, SLOTS), device="cuda", dtype=torch.int32)
    pos = torch.randint(0, 128256, (rows, SLOTS), device="cuda", dtype=torch.int32)
    count = torch.full((rows,), 1100, device="cuda", dtype=torch.int32)
    vals = torch.empty(rows, K, device="cuda", dtype=torch.bfloat16)
    idx = torch.empty(rows, K, device="cuda", dtype=torch.int64)
    line = [f"rows={rows:4d} sort64"]
    for w in (4, 8, 16):
        f = lambda: T.topk_sort_kernel[(rows,)](keys, pos, vals, idx, SLOTS, K, True, True, SLOTS, count, 0, True, num_warps=w)
        line.append(f"w{w} {graph_us(f):7.2f}")
    out = torch.empty_like(keys)
    for w in (4, 8, 16):
        f = lambda: sort32_kernel[(rows,)](keys, out, SLOTS, num_warps=w)
        line.append(f"sort32 w{w} {graph_us(f):7.2f}")
    print("  ".join(line), flush=True)
    maxima = torch.randint(0, 2**31 - 1, (rows, 8016), device="cuda", dtype=torch.int32)
    bound = torch.empty(rows, device="cuda", dtype=torch.int32)
    cnt = torch.empty(rows, device="cuda", dtype=torch.int32)
    line = [f"rows={rows:4d} bound"]
    for w in (8, 16, 32):
        f = lambda: T.topk_row_bound_kernel[(rows,)](maxima, bound, cnt, 8016, K, 8192, num_warps=w)
        line.append(f"7 passes w{w} {graph_us(f):7.2f}")
    ref = bound.clone()
    for w in (8, 16, 32):
        f = lambda: bound4_kernel[(rows,)](maxima, bound, cnt, 8016, K, 8192, 4, num_warps=w)
        line.append(f"4 passes w{w} {graph_us(f):7.2f}")
    ok = bool(((bound.view(torch.uint32) if hasattr(torch, 'uint32') else bound) is not None))
    line.append(f"4-pass bound <= exact: {bool((bound.to(torch.int64) & 0xFFFFFFFF).le(ref.to(torch.int64) & 0xFFFFFFFF).all())}")
    print("  ".join(line), flush=True)
