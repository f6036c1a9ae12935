"""Experiment: matmul_tma with the persistent tile loop flattened into the K loop (the pipeliner
then overlaps a tile's epilogue with the next tile's loads) against the kernel as it is."""
import os, sys, importlib.util
import torch, triton
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk

src = open(os.path.join(ROOT, "operators", "matmul", "matmul_tma.py")).read()
old = "for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS):"
assert old in src
flat_path = "/tmp/matmul_tma_flat.py"
open(flat_path, "w").write(src.replace(old, "for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):"))
orig_module = sk.module

def load_flat(relative):
    if relative == "matmul/matmul_tma.py":
        spec = importlib.util.spec_from_file_location("matmul_tma_flat", flat_path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        return m
    return orig_module(relative)

torch.manual_seed(0)
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
sms = torch.cuda.get_device_properties(0).multi_processor_count

def mm_rows(mod, label):
    tma = mod("matmul/matmul_tma.py").matmul_tma_kernel
    for name, k, n in (("qkv", 4096, 6144), ("o", 4096, 4096)):
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / 64
        b = w.t()
        for m in (128, 512, 2048):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            def run():
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    a, b, c, c, m, n, k, 1, 0, a.stride(0), 0, b.stride(0), b.stride(1), 0, c.stride(0), 0, 0, 0,
                    1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)
            run(); torch.cuda.synchronize()
            err = sk.rel_error(c, a.float() @ b.float())
            us = sk.gpu_us(run); aten = sk.gpu_us(lambda: torch.mm(a, b))
            print(f"{label:5} mm {name:8} {m:5}x{k}x{n:<6} ours {us:8.1f} cuBLAS {aten:8.1f} ratio {us/aten:5.2f} err {err:.1e} best {sk.best_timings(tma)[:1]}", flush=True)

for label, mod in (("orig", orig_module), ("flat", load_flat)):
    sk.module = mod
    rows = sk.bmm_rows(torch.bfloat16)
    for r in rows:
        if r["kernel"] == "tma":
            print(f"{label:5} bmm {r['shape']:<26} ours {r['ours_us']:8.1f} ATen {r['aten_us']:8.1f} ratio {r['ratio']:5.2f} err {r['error']:.1e} best {r['best'][:1]}", flush=True)
    mm_rows(mod, label)
