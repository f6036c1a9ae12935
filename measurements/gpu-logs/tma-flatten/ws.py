"""Experiment: the persistent matmul with its K loop warp-specialized (producer warps issue TMA
loads, consumer warp groups the wgmma) against the flattened kernel, at 128-2048 rows."""
import os, sys, importlib.util
import torch, triton
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")  # docs/gpu-logs/<run>/
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "ops"))
import sweep_kernels as sk

src = open(os.path.join(ROOT, "operators", "matmul", "matmul_tma.py")).read()
outer = "for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, flatten=True):"
inner = "for ki in range(k_tiles):"
assert outer in src and inner in src
variants = {
    "ws": src.replace(outer, "for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS):").replace(
        inner, "for ki in tl.range(0, k_tiles, warp_specialize=True):"),
    "ws-outer": src.replace(outer, "for tile in tl.range(tl.program_id(0), num_tiles, NUM_SMS, warp_specialize=True):"),
}
orig_module = sk.module

def loader(name):
    path = f"/tmp/matmul_tma_{name}.py"
    open(path, "w").write(variants[name])
    def load(relative):
        if relative == "matmul/matmul_tma.py":
            spec = importlib.util.spec_from_file_location("matmul_tma_" + name.replace("-", "_"), path)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
            return m
        return orig_module(relative)
    return load

torch.manual_seed(0)
triton.set_allocator(lambda size, align, stream: torch.empty(size, dtype=torch.int8, device="cuda"))
print(torch.cuda.get_device_name(), torch.__version__, triton.__version__, flush=True)
sms = torch.cuda.get_device_properties(0).multi_processor_count

def mm_rows(mod, label):
    tma = mod("matmul/matmul_tma.py").matmul_tma_kernel
    for name in ("qkv", "o", "down"):
        n, k = sk.LINEARS[name]
        w = torch.randn(n, k, device="cuda", dtype=torch.bfloat16) / 64
        b = w.t()
        for m in (128, 256, 512, 2048):
            a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
            c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
            def run():
                tma[lambda meta: (min(sms, triton.cdiv(m, meta["BLOCK_M"]) * triton.cdiv(n, meta["BLOCK_N"])),)](
                    a, b, c, c, m, n, k, 1, 0, a.stride(0), 0, b.stride(0), b.stride(1), 0, c.stride(0), 0, 0, 0,
                    1.0, 0.0, triton.next_power_of_2(m), HAS_BIAS=False, B_KMAJOR=True, NUM_SMS=sms)
            try:
                run(); torch.cuda.synchronize()
            except Exception as e:
                print(f"{label:8} mm {name} {m}: failed: {str(e).splitlines()[0][:200]}", flush=True)
                return
            err = sk.rel_error(c, a.float() @ b.float())
            us = sk.gpu_us(run); aten = sk.gpu_us(lambda: torch.mm(a, b))
            print(f"{label:8} mm {name:5} {m:5}x{k}x{n:<6} ours {us:8.1f} cuBLAS {aten:8.1f} ratio {us/aten:5.2f} err {err:.1e} best {sk.best_timings(tma)[:1]}", flush=True)

for label, mod in (("flat", orig_module), ("ws", loader("ws")), ("ws-outer", loader("ws-outer"))):
    mm_rows(mod, label)
