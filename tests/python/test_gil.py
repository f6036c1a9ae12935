"""A Python host thread waiting for another thread's compile does not hold the GIL, so the
compile (which runs Triton, in Python) finishes: no deadlock."""
import os
import subprocess
import sys

import pytest

from conftest import BUILD, KERNELS, ROOT

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

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


# Note [The GIL and the runtime's locks]: the process's first calls, from several Python threads
# at once, each holding the GIL until it waits; one of them loads the compiler bridge (which
# imports the compile script, under the GIL). Before the bridge's lock was taken without the GIL
# this hung every time.
FIRST_CALLS = r"""
import os, sys, threading
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import torch, triton_jit
from python_entry import kernels
x = torch.empty(4096)
start = threading.Barrier(4)
results = []
def first_call(kernel, **kw):
    start.wait()
    results.append(triton_jit.jit(kernel).warmup(*kw.pop("args"), **kw)["signature"])
threads = [threading.Thread(target=first_call, kwargs=kw) for kw in (
    dict(kernel=kernels.add, args=(x, x, x, 4096), BLOCK=1024),
    dict(kernel=kernels.affine, args=(x, x, 4096)),
    dict(kernel=kernels.scaled_copy, args=(x, x, 4096, 2.0)),
    dict(kernel=kernels.tuned_add, args=(x, x, x, 4096)))]
for t in threads: t.start()
for t in threads: t.join()
print(len(results), "first calls")
"""


def test_first_calls_from_four_python_threads_at_once_finish(tmp_path):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    for attempt in range(3):  # the race needs the threads to meet: three fresh processes
        result = subprocess.run([sys.executable, "-c", FIRST_CALLS, os.path.join(BUILD, "python"), KERNELS], env=env,
                                capture_output=True, text=True, timeout=240)  # a deadlock ends here, failing
        assert result.returncode == 0, result.stderr
        assert result.stdout.strip().endswith("4 first calls"), result.stdout


# A kernel module whose import starts a thread that launches one of its kernels and waits for it:
# the runtime imports the module to compile, and the thread's compile must not wait for that
# import to finish (Triton's own launch would not).
IMPORT_JOINS = r"""
import sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, sys.argv[2])
import torch, triton_jit
import joins_at_import
print("imported:", joins_at_import.SIGNATURE)
"""


def test_a_module_whose_import_waits_for_a_thread_using_the_runtime_finishes(tmp_path):
    (tmp_path / "joins_at_import.py").write_text('''
import threading
import torch
import triton
import triton.language as tl
import triton_jit


@triton.jit
def double(x_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)


SIGNATURE = None


def _warm():
    global SIGNATURE
    x = torch.empty(256)
    SIGNATURE = triton_jit.jit(double).warmup(x, 256, BLOCK=256)["signature"]


_t = threading.Thread(target=_warm)
_t.start()
_t.join()
''')
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", IMPORT_JOINS, os.path.join(BUILD, "python"), str(tmp_path)],
                            env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stderr
    assert "imported: x_ptr: *fp32:16, n: i32:16, BLOCK=256" in result.stdout, result.stdout
