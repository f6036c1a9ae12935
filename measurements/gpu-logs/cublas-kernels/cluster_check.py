"""Does Triton 3.6 share loads across a cluster on sm_90? Compiles matmul_wave.py's kernel (one
128 x 128 tile, host descriptors) for sm_90 with num_ctas 1 and 2, without a GPU, and counts in
the PTX the cluster directives and the multicast copies that cuBLAS's clustered kernels rely on.

  python docs/gpu-logs/cublas-kernels/cluster_check.py"""
import importlib.util
import os

import triton
from triton.backends.compiler import GPUTarget

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def kernel():
    spec = importlib.util.spec_from_file_location("matmul_wave", os.path.join(ROOT, "operators", "matmul",
                                                                              "matmul_wave.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    k = module.matmul_wave_kernel
    while type(k).__name__ in ("Autotuner", "Heuristics"):
        k = k.fn
    return k


def main():
    k = kernel()
    constants = {"HAS_BIAS": False, "NUM_SMS": 132, "BLOCK_M": 128, "BLOCK_N0": 128, "BLOCK_N1": 0, "BLOCK_N2": 0,
                 "BLOCK_K": 64}
    signature = {"a_desc": "tensordesc<bf16[128, 64]>", "b0_desc": "tensordesc<bf16[128, 64]>",
                 "b1_desc": "tensordesc<bf16[64, 64]>", "b2_desc": "tensordesc<bf16[64, 64]>", "c_ptr": "*bf16",
                 "bias_ptr": "*bf16", "M": "i32", "N": "i32", "K": "i32", "stride_cm": "i32", "stride_biasm": "i32",
                 "stride_biasn": "i32", "alpha": "fp32", "beta": "fp32", "M_CLASS": "i32",
                 **{name: "constexpr" for name in constants}}
    source = triton.compiler.ASTSource(fn=k, signature={n: signature[n] for n in k.arg_names}, constexprs=constants)
    print("triton", triton.__version__, "target sm_90")
    for ctas in (1, 2):
        compiled = triton.compile(source, target=GPUTarget("cuda", 90, 32),
                                  options={"num_warps": 8, "num_stages": 3, "num_ctas": ctas})
        ptx = compiled.asm["ptx"]
        print(f"num_ctas={ctas}: cluster directive {'.reqnctapercluster' in ptx or '.explicitcluster' in ptx}, "
              f"TMA loads {ptx.count('cp.async.bulk.tensor')}, of them multicast {ptx.count('.multicast::cluster')}, "
              f"mentions of 'multicast' {ptx.count('multicast')}")


if __name__ == "__main__":
    main()
