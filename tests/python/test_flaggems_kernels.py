"""FlagGems' own kernels, loaded as FlagGems writes them, through this runtime: wrapped in its
`libentry` (a KernelInterface that holds the kernel in `.fn` and caches launches in Python) and
its `libtuner` (a subclass of Triton's Autotuner with a cache and key strategies of its own),
over @triton.heuristics and @triton.jit. On CPU each compiles for sm_90 through warmup() (every
config of a tuned kernel); on a GPU each is launched from C++ and compared with torch. The
package is the pinned `flag-gems` (requirements.txt); FlagGems needs a vendor and a tuning
database named when it imports without a GPU."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, requires_gpu

try:
    import importlib.util
    HAVE_FLAGGEMS = importlib.util.find_spec("flag_gems") is not None
except ValueError:
    HAVE_FLAGGEMS = False

pytestmark = [pytest.mark.gpu,  # the whole file is part of the GPU check
              pytest.mark.skipif(not HAVE_FLAGGEMS, reason="flag_gems is not installed (scripts/setup_env.sh "
                                                           "installs the pinned flag-gems)")]

RMS_NORM = "flag_gems.ops.rms_norm:rms_norm_kernel"          # libentry over @triton.jit(do_not_specialize)
SOFTMAX = "flag_gems.ops.softmax:softmax_kernel_inner"       # libentry over @triton.heuristics
MM = "flag_gems.ops.mm:mm_kernel_general"                    # libentry over libtuner (an Autotuner subclass)

CPU_PROGRAM = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import triton_jit_parity as parity
RMS_NORM, SOFTMAX, MM = sys.argv[2:5]
f16 = ("tensor", ("float16", 1 << 20))
f32 = ("tensor", ("float32", 1 << 21))
i64 = lambda v: ("int64", v)
out = {}
out["rms_norm"] = parity.variant_report(RMS_NORM, "", [f16, f32, f16, f16, i64(4096), i64(1), i64(4096), i64(1),
                                                       i64(4096), ("double", 1e-6), i64(4096)], 0, 0, False)
out["softmax"] = parity.variant_report(SOFTMAX, "", [f32, f32, i64(64), i64(1000)], 0, 0, False)
out["mm"] = parity.variant_report(MM, "", [f16, f16, f16, i64(512), i64(512), i64(512), i64(512), i64(1), i64(512),
                                           i64(1), i64(512), i64(1), i64(8)], 0, 0, False)  # GROUP_M=8, as mm() passes
for report in out.values():
    report["cubin"] = len(report["cubin"])
    report.pop("ir")
print("REPORT " + json.dumps(out))
"""


def flaggems_env(tmp_path, gpu):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), GEMS_VENDOR="nvidia",
               FLAGGEMS_DB_URL=f"sqlite:///{tmp_path / 'flaggems_tuned.db'}")
    if not gpu:
        env.update(TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    return env


def test_flaggems_kernels_compile_through_their_libentry_and_libtuner_wrappers(tmp_path):
    result = subprocess.run([sys.executable, "-c", CPU_PROGRAM, os.path.join(BUILD, "lib"), RMS_NORM, SOFTMAX, MM],
                            env=flaggems_env(tmp_path, False), capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    report = json.loads(result.stdout.split("REPORT ", 1)[1])
    rms = report["rms_norm"]
    assert rms["kernel_name"] == "rms_norm_kernel" and rms["cubin"] > 0
    assert "eps: fp32" in rms["signature"], rms["signature"]  # do_not_specialize: no attribute, no folding
    softmax = report["softmax"]
    assert "TILE_N=" in softmax["signature"] and "ONE_TILE_PER_CTA=" in softmax["signature"], softmax["signature"]
    mm = report["mm"]
    assert mm["kernel_name"] == "mm_kernel_general" and mm["cubin"] > 0
    assert "BLOCK_M=" in mm["signature"], mm["signature"]
    assert mm["compiles"] > 1, "warmup of the tuned kernel compiles every config left after pruning"


GPU_PROGRAM = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import triton
import triton_jit_parity as parity
RMS_NORM, SOFTMAX, MM = sys.argv[2:5]
torch.manual_seed(0)
def tensor(t):
    return ("cuda_tensor", (str(t.dtype).split(".")[1], t.data_ptr(), t.device.index))
i64 = lambda v: ("int64", v)
stream = torch.cuda.current_stream().cuda_stream
errors = {}
# rms_norm: one program per row, the row in one block
x = torch.randn(64, 4096, device="cuda", dtype=torch.float16)
w = torch.randn(4096, device="cuda", dtype=torch.float16)
y = torch.empty_like(x)
inv = torch.empty(64, device="cuda")
parity.launch(RMS_NORM, "", [tensor(y), tensor(inv), tensor(x), tensor(w), i64(4096), i64(1), i64(4096), i64(1),
                             i64(4096), ("double", 1e-6), i64(4096)], (64, 1, 1), 8, 1, stream)
ref = torch.nn.functional.rms_norm(x.float(), [4096], w.float(), 1e-6)
errors["rms_norm"] = ((y.float() - ref).abs().max() / ref.abs().max()).item()
# softmax over rows: its heuristics choose the tile and the warps
s = torch.randn(64, 1000, device="cuda")
o = torch.empty_like(s)
parity.launch(SOFTMAX, "", [tensor(o), tensor(s), i64(64), i64(1000)], (64, 1, 1), 0, 0, stream)
errors["softmax"] = (o - torch.softmax(s, -1)).abs().max().item()
# mm: tuned by the runtime on its first call (libtuner's configs and key)
a = torch.randn(1000, 512, device="cuda", dtype=torch.float16)
b = torch.randn(512, 768, device="cuda", dtype=torch.float16)
c = torch.empty(1000, 768, device="cuda", dtype=torch.float16)
grid = (lambda m: (triton.cdiv(m["M"], m["BLOCK_M"]) * triton.cdiv(m["N"], m["BLOCK_N"]), 1, 1),
        ["M", "N", "BLOCK_M", "BLOCK_N"])
parity.launch(MM, "", [tensor(a), tensor(b), tensor(c), i64(1000), i64(768), i64(512), i64(512), i64(1), i64(768),
                       i64(1), i64(768), i64(1), i64(8)], grid, 0, 0, stream)
ref = a.float() @ b.float()
errors["mm"] = ((c.float() - ref).norm() / ref.norm()).item()
torch.cuda.synchronize()
print("ERRORS " + json.dumps(errors))
"""


@requires_gpu
def test_flaggems_kernels_launched_from_cpp_match_torch(tmp_path):
    result = subprocess.run([sys.executable, "-c", GPU_PROGRAM, os.path.join(BUILD, "lib"), RMS_NORM, SOFTMAX, MM],
                            env=flaggems_env(tmp_path, True), capture_output=True, text=True, timeout=1500)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    errors = json.loads(result.stdout.split("ERRORS ", 1)[1])
    print(errors)
    assert errors["rms_norm"] < 2e-3 and errors["softmax"] < 1e-5 and errors["mm"] < 2e-3, errors


INSTALL_PROGRAM = r"""
import importlib, sys
sys.path.insert(0, sys.argv[1])
import triton
import triton_jit
from triton_jit import redirect
rms_norm = importlib.import_module("flag_gems.ops.rms_norm").rms_norm_kernel


class Casting(triton.KernelInterface):  # a wrapper of unknown semantics that holds its kernel in .fn
    def __init__(self, fn):
        self.fn = fn

    def run(self, *args, **kwargs):
        return self.fn.run(*args, **kwargs)


other = Casting(rms_norm.fn)
triton_jit.install()
print("SERVED", type(rms_norm[(1,)]).__name__, redirect.served(rms_norm) is not None)
print("REFUSED", type(other[(1,)]).__name__, redirect.served(other))
"""


def test_install_serves_flaggems_libentry_kernels_and_leaves_unknown_wrappers_to_triton(tmp_path):
    result = subprocess.run([sys.executable, "-c", INSTALL_PROGRAM, os.path.join(BUILD, "python")],
                            env=flaggems_env(tmp_path, False), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-6000:]
    lines = dict(line.split(" ", 1) for line in result.stdout.splitlines() if line.startswith(("SERVED", "REFUSED")))
    assert lines["SERVED"] == "Launcher True", result.stdout
    assert lines["REFUSED"] == "function None", result.stdout  # Triton's kernel[grid], and kept there
