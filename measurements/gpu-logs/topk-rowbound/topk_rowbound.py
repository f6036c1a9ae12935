"""Experiment: top-k for k of 128 to 1024 over rows of the vocabulary by one bound for the whole
row. The k-th largest of the row's group maxima (groups of 16) is at most the k-th largest key, and
on random data about 1.1k keys are at or above it; those are gathered (an atomic count a row) and
one sort of at most SLOTS candidates gives the k best. Four launches: group maxima, the bound (a
radix select over the maxima in one program a row), the gather, the sort. Rows whose candidates
overflow SLOTS are counted here (the library would need a fallback for them)."""
import os, sys
import torch, triton
import triton.language as tl

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk

tk = sk.module("index/topk.py")
_keys, _value, _kth_key = tk._keys, tk._value, tk._kth_key


@triton.jit
def group_max_kernel(x_ptr, gm_ptr, N, G, LARGEST: tl.constexpr, BLOCK: tl.constexpr, GROUP: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    pos = chunk * BLOCK + tl.arange(0, BLOCK)
    live = pos < N
    x = tl.load(x_ptr + row * N + pos, mask=live, other=0)
    keys = tl.where(live, _keys(x, LARGEST), 0)
    gmax = tl.max(tl.reshape(keys, [BLOCK // GROUP, GROUP]), axis=1)
    gpos = chunk * (BLOCK // GROUP) + tl.arange(0, BLOCK // GROUP)
    tl.store(gm_ptr + row * G + gpos, gmax.to(tl.int32, bitcast=True), mask=gpos < G)


@triton.jit
def bound_kernel(gm_ptr, bound_ptr, count_ptr, G, K, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    live = offs < G
    keys = tl.load(gm_ptr + row * G + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    kth, _ = _kth_key(keys, live, K, 0, 5)
    tl.store(bound_ptr + row, kth.to(tl.int32, bitcast=True))
    tl.store(count_ptr + row, 0)


@triton.jit
def gather_kernel(x_ptr, bound_ptr, count_ptr, cand_keys_ptr, cand_idx_ptr, N, SLOTS,
                  LARGEST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    chunk = tl.program_id(1)
    pos = chunk * BLOCK + tl.arange(0, BLOCK)
    live = pos < N
    x = tl.load(x_ptr + row * N + pos, mask=live, other=0)
    keys = _keys(x, LARGEST)
    bound = tl.load(bound_ptr + row).to(tl.uint32, bitcast=True)
    take = live & (keys >= bound)
    n = tl.sum(take.to(tl.int32), axis=0)
    if n > 0:
        first = tl.atomic_add(count_ptr + row, n, sem="relaxed")
        slot = first + tl.cumsum(take.to(tl.int32), axis=0) - 1
        ok = take & (slot < SLOTS)
        tl.store(cand_keys_ptr + row * SLOTS + slot, keys.to(tl.int32, bitcast=True), mask=ok)
        tl.store(cand_idx_ptr + row * SLOTS + slot, pos, mask=ok)


@triton.jit
def sort_kernel(cand_keys_ptr, cand_idx_ptr, count_ptr, values_ptr, indices_ptr, SLOTS, K,
                LARGEST: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    offs = tl.arange(0, BLOCK)
    count = tl.minimum(tl.load(count_ptr + row), SLOTS)
    live = offs < count
    keys = tl.load(cand_keys_ptr + row * SLOTS + offs, mask=live, other=0).to(tl.uint32, bitcast=True)
    idx = tl.load(cand_idx_ptr + row * SLOTS + offs, mask=live, other=0)
    word = (keys.to(tl.uint64) << 32) | (0xFFFFFFFF - idx.to(tl.uint32, bitcast=True)).to(tl.uint64)
    word = tl.sort(tl.where(live, word, 0), descending=True)
    OUT: tl.constexpr = values_ptr.dtype.element_ty
    best = offs < K
    tl.store(values_ptr + row * K + offs, _value((word >> 32).to(tl.uint32), LARGEST, OUT), mask=best)
    tl.store(indices_ptr + row * K + offs, (0xFFFFFFFF - (word & 0xFFFFFFFF)).to(tl.int64), mask=best)


def main():
    torch.manual_seed(0)
    print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
    n = 128256
    for dtype in (torch.float32, torch.bfloat16):
        for rows in (1, 16, 256):
            for k in (128, 256, 512, 1024):
                for data in ("randn", "sorted"):
                    x = torch.randn(rows, n, device="cuda", dtype=dtype)
                    if data == "sorted":
                        x = x.sort(dim=1, descending=True).values.contiguous()
                    ref_v, ref_i = torch.topk(x, k)
                    aten = sk.gpu_us(lambda: torch.topk(x, k))
                    best = None
                    for chunk, group, slots in ((4096, 16, 4096), (2048, 16, 4096), (4096, 16, 2048),
                                                (4096, 32, 4096), (4096, 8, 4096)):
                        g = triton.cdiv(n, group)
                        gblock = triton.next_power_of_2(g)
                        if gblock > 16384 or slots < 2 * k:
                            continue
                        gm = torch.empty(rows, g, device="cuda", dtype=torch.int32)
                        bound = torch.empty(rows, device="cuda", dtype=torch.int32)
                        count = torch.empty(rows, device="cuda", dtype=torch.int32)
                        ck = torch.empty(rows, slots, device="cuda", dtype=torch.int32)
                        ci = torch.empty(rows, slots, device="cuda", dtype=torch.int32)
                        v = torch.empty(rows, k, device="cuda", dtype=dtype)
                        i = torch.empty(rows, k, device="cuda", dtype=torch.int64)
                        chunks = triton.cdiv(n, chunk)

                        def run():
                            group_max_kernel[(rows, chunks)](x, gm, n, g, LARGEST=True, BLOCK=chunk, GROUP=group,
                                                             num_warps=4 if chunk <= 2048 else 8)
                            bound_kernel[(rows,)](gm, bound, count, g, k, BLOCK=gblock, num_warps=16)
                            gather_kernel[(rows, chunks)](x, bound, count, ck, ci, n, slots, LARGEST=True,
                                                          BLOCK=chunk, num_warps=4 if chunk <= 2048 else 8)
                            sort_kernel[(rows,)](ck, ci, count, v, i, slots, k, LARGEST=True, BLOCK=slots,
                                                 num_warps=8 if slots >= 4096 else 4)
                        try:
                            run()
                            torch.cuda.synchronize()
                            over = int((count > slots).sum())
                            same = torch.equal(v, ref_v) and torch.equal(i, ref_i)
                            us = sk.gpu_us(run)
                        except Exception as e:  # noqa: BLE001 - a config that fails is reported, not fatal
                            print(f"  {chunk}/{group}/{slots}: {type(e).__name__} {str(e)[:150]}", flush=True)
                            continue
                        cand = int(count.max())
                        if best is None or (us < best[0] and (same or best[2] is False)):
                            best = (us, f"chunk {chunk} groups of {group} slots {slots}", same, over, cand)
                    if best is None:
                        continue
                    print(f"topk({k:4}) {rows:3}x{n} {str(dtype)[6:]:8} {data:6} ATen {aten:7.1f}  row bound "
                          f"{best[0]:7.1f} ({best[0] / aten:4.2f}) {best[1]}  equal to torch {best[2]}  "
                          f"rows overflowing {best[3]}  most candidates {best[4]}", flush=True)


if __name__ == "__main__":
    main()
