import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("TRITON_JIT_BUILD_DIR", os.path.join(ROOT, "build"))
sys.path.insert(0, os.path.join(ROOT, "src", "compiler", "python"))
sys.path.insert(0, os.path.join(BUILD, "lib"))
KERNELS = os.path.join(ROOT, "tests", "kernels")


def gpu_available():
    try:
        import torch
        return torch.cuda.is_available()
    except Exception:
        return False


def pytest_configure(config):
    config.addinivalue_line("markers", "gpu: part of the GPU check (scripts/gpu_check.sh runs pytest -m gpu): a test "
                                       "that launches on a GPU, or a file to run again on that machine's toolchain")


_skip_without_gpu = pytest.mark.skipif(not gpu_available(), reason="no GPU: launch tests run on the GPU machine")


def requires_gpu(test):
    """A test that launches on a GPU: in the GPU check (marker gpu), and skipped, visibly, without one."""
    return pytest.mark.gpu(_skip_without_gpu(test))


def pytest_collection_modifyitems(config, items):
    """TRITON_JIT_TEST_SHARD=i/n keeps every n-th test from the i-th: the GPU check runs the long
    operator suite in parallel processes (compiles are per process)."""
    shard = os.environ.get("TRITON_JIT_TEST_SHARD")
    if not shard:
        return
    index, count = (int(v) for v in shard.split("/"))
    kept = [item for k, item in enumerate(items) if k % count == index]
    config.hook.pytest_deselected(items=[item for item in items if item not in kept])
    items[:] = kept
