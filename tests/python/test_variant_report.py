"""What a variant reports of its compile, as Triton's CompiledKernel has it: the IR texts when
keep_ir asks for them (kept in the cache entry, and compiled again when an entry lacks them), and
on the GPU the registers, spills and thread limit the driver reports, against Triton's own."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, KERNELS, requires_gpu

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

PROGRAM = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import triton_jit_parity as parity
kernels, mode = sys.argv[2], sys.argv[3]
parity.set_keep_ir(mode in ("keep", "gpu"))
out = {}
if mode == "gpu":
    import triton
    sys.path.insert(0, kernels)
    import parity_kernels as k
    x = torch.randn(8192, device="cuda")
    a = torch.randn(256, 256, device="cuda", dtype=torch.float16)
    c = torch.empty(256, 256, device="cuda", dtype=torch.float16)
    def tensor(t):
        return ("cuda_tensor", (str(t.dtype).split(".")[1], t.data_ptr(), t.device.index))
    ours = parity.variant_report(kernels + "/parity_kernels.py", "pointwise",
                                 [tensor(x), tensor(x), tensor(x), ("int32", 8192), ("int32", 1024)], 4, 3, True)
    theirs = k.pointwise.warmup(x, x, x, 8192, BLOCK_SIZE=1024, grid=(1,), num_warps=4, num_stages=3)
    theirs._init_handles()
    out["pointwise"] = [ours, {"n_regs": theirs.n_regs, "n_spills": theirs.n_spills,
                               "n_max_threads": theirs.n_max_threads, "ptx": theirs.asm["ptx"]}]
    strides = [("int32", 256), ("int32", 1)] * 3
    dims = [("int32", 256)] * 3
    blocks = [("int32", 128), ("int32", 128), ("int32", 64)]
    ours = parity.variant_report(kernels + "/parity_kernels.py", "matmul",
                                 [tensor(a), tensor(a), tensor(c)] + dims + strides + blocks, 8, 3, True)
    theirs = k.matmul.warmup(a, a, c, 256, 256, 256, 256, 1, 256, 1, 256, 1, 128, 128, 64, grid=(1,),
                             num_warps=8, num_stages=3)
    theirs._init_handles()
    out["matmul"] = [ours, {"n_regs": theirs.n_regs, "n_spills": theirs.n_spills,
                            "n_max_threads": theirs.n_max_threads, "ptx": theirs.asm["ptx"]}]
    for pair in out.values():
        pair[0].pop("cubin")
else:
    x = ("tensor", ("float32", 1 << 20))
    report = parity.variant_report(kernels + "/parity_kernels.py", "pointwise",
                                   [x, x, x, ("int32", 4096), ("int32", 256)], 4, 3, False)
    report["cubin"] = len(report["cubin"])
    out["pointwise"] = report
print("REPORT " + json.dumps(out))
"""


def report(tmp_path, mode, gpu=False):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_CACHE_DIR=str(tmp_path / "triton"))
    if not gpu:
        env.update(TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", PROGRAM, os.path.join(BUILD, "lib"), KERNELS, mode], env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    line = [l for l in result.stdout.splitlines() if l.startswith("REPORT ")][-1]
    return json.loads(line[len("REPORT "):])


def test_ir_texts_are_kept_only_when_asked_and_persist_with_the_variant(tmp_path):
    plain = report(tmp_path, "plain")["pointwise"]
    assert plain["compiles"] == 1 and plain["ir"] == {} and plain["cubin"] > 1000
    # Without a GPU nothing is loaded: the driver's figures are not known.
    assert (plain["n_regs"], plain["n_spills"], plain["n_max_threads"]) == (-1, -1, -1)

    kept = report(tmp_path, "keep")["pointwise"]
    # The stored entry had no IR and keep_ir is on: compiled again, with the texts.
    assert kept["compiles"] == 1
    assert list(kept["ir"]) == ["ttir", "ttgir", "llir", "ptx"]
    assert "tt.func public @pointwise" in kept["ir"]["ttir"]
    assert '"ttg.num-warps" = 4' in kept["ir"]["ttgir"]
    assert "define " in kept["ir"]["llir"] and "@pointwise" in kept["ir"]["llir"]
    assert ".entry pointwise" in kept["ir"]["ptx"] and ".target sm_90" in kept["ir"]["ptx"]
    assert kept["cubin"] == plain["cubin"]

    # A later process reads them from the cache entry, compiling nothing, whether it asks or not.
    again = report(tmp_path, "plain")["pointwise"]
    assert again["compiles"] == 0 and again["ir"] == kept["ir"]
    assert report(tmp_path, "keep")["pointwise"]["compiles"] == 0


@requires_gpu
def test_registers_spills_and_threads_are_what_tritons_compiled_kernel_reports(tmp_path):
    for name, (ours, theirs) in report(tmp_path, "gpu", gpu=True).items():
        for field in ("n_regs", "n_spills", "n_max_threads"):
            assert ours[field] == theirs[field], (name, field, ours[field], theirs[field])
        assert ours["n_regs"] > 0 and ours["n_max_threads"] >= 32 * ours["num_warps"], (name, ours["n_regs"])
        assert ours["ir"]["ptx"] == theirs["ptx"], name
        print(f"{name}: n_regs={ours['n_regs']} n_spills={ours['n_spills']} n_max_threads={ours['n_max_threads']} "
              f"(Triton's: {theirs['n_regs']}, {theirs['n_spills']}, {theirs['n_max_threads']})")
