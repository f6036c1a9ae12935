"""This library's operators inside torch.distributed: tests/distributed/tp_mlp.py, one process
per GPU under torchrun. Runs where two GPUs are (nvidia-h200-x2); skips, visibly, elsewhere."""
import os
import subprocess
import sys

import pytest
import torch

from conftest import BUILD, ROOT

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

OPS_LIBRARY = os.path.join(BUILD, "lib", "libtriton_jit_ops.so")


@pytest.mark.skipif(not torch.cuda.is_available() or torch.cuda.device_count() < 2,
                    reason="needs two GPUs: the tensor-parallel test runs on a two-GPU machine")
def test_tensor_parallel_mlp_with_our_ops_matches_one_gpu():
    run = subprocess.run([sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node=2",
                          os.path.join(ROOT, "tests", "distributed", "tp_mlp.py"), OPS_LIBRARY],
                         capture_output=True, text=True, timeout=600)
    print(run.stdout[-4000:])
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-6000:]
    assert "tp_mlp: ok" in run.stdout
