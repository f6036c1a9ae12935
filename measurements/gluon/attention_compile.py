"""Compiles operators/attention/attention_gluon.py's kernels (attention_fwd_kernel and
attention_fwd_pingpong_kernel) for sm_90 without a GPU, every (HEAD_DIM, CAUSAL, dtype) with
launch_config()'s blocks, and checks the PTX: wgmma, TMA (cp.async.bulk.tensor), tensor maps made
on the device, warp specialization (setmaxnreg), and no register spills (ptxas -v). Prints shared
memory, warps and register budgets per config.
    python3 measurements/gluon/attention_compile.py [--ptx DIR]   (from the repository's root)"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "operators", "attention"))

import triton  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402
from triton.experimental.gluon._runtime import GluonASTSource  # noqa: E402

import attention_gluon  # noqa: E402

TYPES = {"bf16": "*bf16", "fp16": "*fp16"}
DIVISIBLE = ("q_ptr", "k_ptr", "v_ptr", "o_ptr", "cu_q_ptr", "cu_k_ptr", "stride_qt", "stride_qh", "stride_kt",
             "stride_kh", "stride_vt", "stride_vh", "stride_ot", "stride_oh")


def compile_config(head_dim, causal, dtype, pingpong=False, group=4, config=None):
    fn = attention_gluon.attention_fwd_pingpong_kernel if pingpong else attention_gluon.attention_fwd_kernel
    cfg = dict(config or attention_gluon.launch_config(head_dim, 2, causal, 4096, pingpong))
    num_warps = cfg.pop("num_warps")
    constexprs = dict(GROUP=group, HEAD_DIM=head_dim, CAUSAL=causal, **cfg)
    signature = {}
    for name in fn.arg_names:
        if name in constexprs:
            signature[name] = "constexpr"
        elif name in ("q_ptr", "k_ptr", "v_ptr", "o_ptr"):
            signature[name] = TYPES[dtype]
        elif name in ("cu_q_ptr", "cu_k_ptr"):
            signature[name] = "*i32"
        elif name == "scale_log2":
            signature[name] = "fp32"
        else:
            signature[name] = "i32"
    attrs = {(fn.arg_names.index(n), ): [["tt.divisibility", 16]] for n in DIVISIBLE}
    src = GluonASTSource(fn, signature, constexprs, attrs)
    kernel = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=num_warps))
    return kernel, cfg, num_warps


def spills(ptx):
    """ptxas -v's verdict on the PTX: its spill line, or None where ptxas cannot be run."""
    try:
        from triton.backends.nvidia.compiler import get_ptxas
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "k.ptx")
            with open(path, "w") as f:
                f.write(ptx)
            out = subprocess.run([get_ptxas(90).path, "-arch=sm_90a", "-v", path, "-o", os.path.join(tmp, "k.cubin")],
                                 capture_output=True, text=True, timeout=300).stderr
    except Exception:  # noqa: BLE001 - only a report
        return None
    found = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", out)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def check_config(head_dim, causal, dtype, pingpong, ptx_dir):
    name = f"{'pingpong' if pingpong else 'simple'} d={head_dim} causal={int(causal)} {dtype}"
    try:
        kernel, cfg, warps = compile_config(head_dim, causal, dtype, pingpong)
    except Exception as e:  # noqa: BLE001 - report every config
        print(f"FAIL {name}: does not compile: {type(e).__name__}: {str(e)[-3000:]}", flush=True)
        return False
    ptx = kernel.asm["ptx"]
    if ptx_dir:
        os.makedirs(ptx_dir, exist_ok=True)
        tag = "pp" if pingpong else "ws"
        with open(os.path.join(ptx_dir, f"attn_{tag}_d{head_dim}_c{int(causal)}_{dtype}.ptx"), "w") as f:
            f.write(ptx)
    checks = {"wgmma": "wgmma.mma_async" in ptx, "tma": "cp.async.bulk.tensor" in ptx,
              "tensormap": "tensormap" in ptx, "setmaxnreg": "setmaxnreg" in ptx}
    regs = sorted(set(int(r) for r in re.findall(r"setmaxnreg\.(?:inc|dec)\.sync\.aligned\.u32\s+(\d+)", ptx)))
    spill = spills(ptx)
    md = kernel.metadata
    ok = all(checks.values()) and spill in (None, "0/0")
    print(f"{'PASS' if ok else 'FAIL'} {name}: {cfg} shared={md.shared} B, num_warps={md.num_warps} "
          f"(launch {warps}), setmaxnreg {regs}, global scratch {md.global_scratch_size} B/program, "
          f"spill stores/loads {spill}, {checks}", flush=True)
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ptx", help="write each config's PTX into this folder")
    args = parser.parse_args()
    failed = 0
    for pingpong in (False, True):
        for head_dim in (64, 128, 256):
            for causal in (False, True):
                for dtype in ("bf16", "fp16"):
                    failed += not check_config(head_dim, causal, dtype, pingpong, args.ptx)
    print(f"{'all configs compile' if not failed else f'{failed} configs FAILED'}", flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
