"""A Python host thread waiting for another thread's compile does not hold the GIL, so the
compile (which runs Triton, in Python) finishes: no deadlock."""
import os
import subprocess
import sys

from conftest import BUILD, KERNELS, ROOT

PROGRAM = r"""
import sys, tempfile
sys.path.insert(0, sys.argv[1])
import torch  # noqa: F401  (libtorch before the module)
import triton_jit_parity
print(triton_jit_parity.concurrent_first_call(sys.argv[2] + "/parity_kernels.py", "pointwise", 64))
"""


def test_waiting_python_thread_releases_the_gil(tmp_path):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", PROGRAM, os.path.join(BUILD, "lib"), KERNELS], env=env,
                            capture_output=True, text=True, timeout=300)  # a deadlock ends here, failing
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("BLOCK_SIZE=64 compiles=1")
