"""The calls real libraries' wrappers make, unmodified (Liger-Kernel, flash-linear-attention and
its Gluon backends, FlagGems), compiled by Triton's own runtime and by this runtime for sm_90 without a GPU: the same
cubins for every kernel (library_calls.py says how)."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD

HERE = os.path.dirname(os.path.abspath(__file__))
NEEDS = {"liger": "liger_kernel", "fla": "fla", "fla-gluon": "fla", "flaggems": "flag_gems",
         "flaggems-model": "flag_gems"}


def _installed(module):
    try:
        return importlib.util.find_spec(module) is not None
    except ValueError:
        return False


@pytest.mark.parametrize("scenario", sorted(NEEDS))
def test_a_librarys_calls_compile_to_tritons_own_cubins(scenario, tmp_path):
    if not _installed(NEEDS[scenario]):
        pytest.skip(f"{NEEDS[scenario]} is not installed (requirements.txt pins it)")
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "ours"), TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="", GEMS_VENDOR="nvidia",
               FLAGGEMS_DB_URL=f"sqlite:///{tmp_path / 'flaggems_tuned.db'}",
               PYTHONPATH=os.pathsep.join([os.path.join(BUILD, "python"), HERE, os.environ.get("PYTHONPATH", "")]))
    result = subprocess.run([sys.executable, os.path.join(HERE, "library_calls.py"), scenario], env=env,
                            capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0 and "REPORT " in result.stdout, result.stdout[-3000:] + result.stderr[-6000:]
    report = json.loads(result.stdout.split("REPORT ", 1)[1])
    assert report["error"] is None, report["error"]
    assert report["problems"] == [], report["problems"]
    kernels = report["kernels"]
    assert len(kernels) >= 2, kernels
    for name, k in kernels.items():
        assert k["calls"] > 0 and k["triton"] > 0, (name, k)
        assert k["triton_found"] == k["triton"] and k["ours_explained"] == k["ours"], (name, k)
