"""triton_jit_aot tunes: a manifest's "tune" calls run as real calls, the configs @triton.autotune
chooses go into the bundle with their variants, and an offline process uses them without tuning.
Runs on the stand-in driver; on the GPU machine scripts/gpu_check.sh does the same on the H200."""
import json
import os
import shutil
import subprocess

import pytest

import cache_entries
from conftest import BUILD, KERNELS

AOT = os.path.join(BUILD, "bin", "triton_jit_aot")
PROBE = os.path.join(BUILD, "bin", "tune_probe")
DRIVER = os.path.join(BUILD, "tests", "fake_cuda", "libcuda.so.1")
FAKE = {"TRITON_JIT_CUDA_DRIVER": DRIVER, "TRITON_JIT_TARGET": "cuda:90"}

SCALE_TUNE = {"target": "cuda:90", "kernels": [{
    "kernel": "decorated_kernels.py", "function": "scale_tuned",
    "tune": [{"args": [{"tensor": "fp32", "numel": 4096}, {"tensor": "fp32", "shape": [64, 64], "fill": "zero"},
                       4096, 2.0],
              "grid": ["cdiv(n, META['BLOCK'])"]}]}]}


def aot(tmp_path, manifest, *flags, env=None):
    shutil.copy(os.path.join(KERNELS, "decorated_kernels.py"), tmp_path / "decorated_kernels.py")
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest))
    environment = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "aot-cache"), **(env or {}))
    return subprocess.run([AOT, str(path), "-o", str(tmp_path / "bundle"), *flags], capture_output=True, text=True,
                          env=environment, timeout=900)


def test_tuning_calls_put_the_chosen_config_into_the_bundle_for_offline_use(tmp_path):
    result = aot(tmp_path, SCALE_TUNE, env=dict(FAKE, FAKE_CUDA_FAST_BLOCK="256"))
    assert result.returncode == 0, result.stderr
    assert "tuned scale_tuned kernels[0].tune[0]: BLOCK=256, num_warps=8" in result.stderr
    assert "0 variants of 1 kernels and 1 tuned keys written to" in result.stderr
    assert len(cache_entries.files(tmp_path / "bundle", ".tuning")) == 1
    # A fresh process on a device where another config would win: the bundle's choice stands,
    # with no tuning, no compiling and no Python.
    probe = subprocess.run(
        [PROBE, str(tmp_path / "decorated_kernels.py"), "4096"], capture_output=True, text=True, timeout=600,
        env=dict(os.environ, **FAKE, FAKE_CUDA_FAST_BLOCK="64", TRITON_JIT_BUNDLE_PATH=str(tmp_path / "bundle"),
                 TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"), TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent"))
    assert probe.returncode == 0, probe.stderr
    assert json.loads(probe.stdout.strip().splitlines()[-1]) == {
        "tunings": 0, "compiles": 0, "config": 2, "source": "bundle", "libpython": False}


def test_a_tuning_call_with_a_tuple_of_tensors_tunes_its_key(tmp_path):
    """pair_sum takes its inputs as a tuple (as fla's AttnRes does) and its prune reads the tuple's
    length: BLOCK=512 is pruned for a pair, so the stand-in device's fastest config never runs."""
    pair = [{"tensor": "fp32", "numel": 4096}, {"tensor": "fp32", "numel": 4096}]
    manifest = {"target": "cuda:90", "kernels": [{
        "kernel": "decorated_kernels.py", "function": "pair_sum",
        "tune": [{"args": [pair, {"tensor": "fp32", "numel": 4096, "fill": "zero"}, 4096],
                  "grid": ["cdiv(n, META['BLOCK'])"]}]}]}
    result = aot(tmp_path, manifest, env=dict(FAKE, FAKE_CUDA_FAST_BLOCK="512"))
    assert result.returncode == 0, result.stderr
    assert "tuned pair_sum kernels[0].tune[0]: BLOCK=" in result.stderr, result.stderr
    assert "BLOCK=512" not in result.stderr
    # The bundle keeps the choice, and what the prune kept (so that an offline process needs no
    # Python for it): BLOCK 64 and 128, the prune having seen two tensors in the tuple.
    entries = [open(f, errors="replace").read() for f in cache_entries.files(tmp_path / "bundle", ".tuning")]
    assert len(entries) == 2
    assert any('"device":"prune_configs_by"' in e and '"kept":[0,1]' in e for e in entries), entries
    assert any('"device":"fake"' in e for e in entries), entries


def test_without_a_gpu_tuning_is_an_error_unless_left_out(tmp_path):
    no_gpu = {"CUDA_VISIBLE_DEVICES": "", "TRITON_JIT_CUDA_DRIVER": "/nonexistent/libcuda.so.1"}
    result = aot(tmp_path, SCALE_TUNE, env=no_gpu)
    assert result.returncode == 1
    assert "kernels[0].tune[0] (scale_tuned): tuning runs on a GPU and there is none here" in result.stderr
    assert "--no-tune" in result.stderr
    result = aot(tmp_path, SCALE_TUNE, "--no-tune", env=no_gpu)
    assert result.returncode == 0, result.stderr
    assert "1 tuning calls left out (--no-tune): their keys are not in the bundle" in result.stderr


def test_a_grid_error_names_the_entry_and_the_expression(tmp_path):
    manifest = json.loads(json.dumps(SCALE_TUNE))
    manifest["kernels"][0]["tune"][0]["grid"] = ["cdiv(n, BLOCKS)"]
    result = aot(tmp_path, manifest, env=FAKE)
    assert result.returncode == 1
    assert "kernels[0].tune[0] (scale_tuned): " in result.stderr and "BLOCKS" in result.stderr


@pytest.mark.parametrize("tune, message", [
    ({"args": ["*fp32", {"tensor": "fp32", "numel": 4}, 4, 2.0], "grid": [1]},
     "kernels[0].tune[0].args[0]: '*fp32' is a type; a tuning call needs values"),
    ({"args": [{"tensor": "fp32"}], "grid": [1]}, "kernels[0].tune[0].args[0]: give one of 'numel' and 'shape'"),
    ({"args": [{"tensor": "fp31", "numel": 4}], "grid": [1]}, "kernels[0].tune[0].args[0]: 'tensor' is 'fp31'"),
    ({"args": [{"tensor": "fp32", "shape": [1 << 30, 1 << 30]}], "grid": [1]},
     "kernels[0].tune[0].args[0]: 'shape' must hold positive sizes of at most 2^40 elements"),
    ({"args": [{"tensor": "fp32", "numel": 4, "fill": "ones"}], "grid": [1]}, "'fill' is 'ones'"),
    ({"args": [], "grid": ["n / BLOCK"]}, "kernels[0].tune[0].grid[0]: 'n / BLOCK': '/' is a float division; "
                                          "write '//' at column 3"),
    ({"args": [], "grid": ["cdiv(n)"]}, "kernels[0].tune[0].grid[0]: 'cdiv(n)': cdiv takes two arguments"),
    ({"args": [], "grid": ["(" * 100 + "1" + ")" * 100]}, "nested too deeply"),
    ({"args": [], "grid": [1, 1, 1, 1]}, "kernels[0].tune[0].grid: must be a list of one to three dimensions"),
    ({"args": []}, "kernels[0].tune[0]: 'grid' is missing"),
    ({"args": [], "grid": [1], "stream": 0}, "kernels[0].tune[0]: unknown key 'stream'"),
])
def test_tuning_entries_are_validated(tmp_path, tune, message):
    manifest = {"kernels": [{"kernel": "decorated_kernels.py", "function": "scale_tuned", "tune": [tune]}]}
    result = aot(tmp_path, manifest, env=FAKE)
    assert result.returncode == 1
    assert message in result.stderr, result.stderr
