"""Autotuning remembered: a fresh process finds the config chosen before in the persistent cache or
a bundle and does not tune again, needs no Python for it, and a cache entry is for one kind of
device, one set of configs and the kernel's sources. Runs on the stand-in driver."""
import json
import os
import subprocess

import cache_entries
from conftest import BUILD, KERNELS

PROBE = os.path.join(BUILD, "bin", "tune_probe")
DRIVER = os.path.join(BUILD, "tests", "fake_cuda", "libcuda.so.1")
KERNEL = os.path.join(KERNELS, "decorated_kernels.py")


def probe(cache, n="4096", env=None, check=True, kernel=KERNEL):
    environment = dict(os.environ, TRITON_JIT_CACHE_DIR=str(cache), TRITON_JIT_TARGET="cuda:90",
                       TRITON_JIT_CUDA_DRIVER=DRIVER, FAKE_CUDA_FAST_BLOCK="256", TRITON_JIT_LOG_LEVEL="info")
    environment.update(env or {})
    result = subprocess.run([PROBE, str(kernel), n], capture_output=True, text=True, env=environment, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr
    return result


def test_a_fresh_process_uses_the_tuned_config_without_tuning_or_python(tmp_path):
    cache = tmp_path / "cache"
    first, log = probe(cache)
    assert first["tunings"] == 1 and first["config"] == 2 and first["source"] == "tuned"
    assert "scale_tuned: tuned key (n=4096, *fp32, *fp32) on fake" in log
    assert len(cache_entries.files(cache, ".tuning")) == 1
    # Another device speed now: the choice made before stands.
    again, _ = probe(cache, env={"FAKE_CUDA_FAST_BLOCK": "64", "TRITON_JIT_OFFLINE": "1", "PYTHONHOME": "/nonexistent"})
    assert again == {"tunings": 0, "compiles": 0, "config": 2, "source": "cache", "libpython": False}


def test_a_recorded_bundle_carries_the_choice_to_an_offline_process(tmp_path):
    bundle = tmp_path / "bundle"
    probe(tmp_path / "cache", env={"TRITON_JIT_RECORD_BUNDLE": str(bundle)})
    assert len(cache_entries.files(bundle, ".tuning")) == 1
    out, _ = probe(tmp_path / "empty", env={"TRITON_JIT_BUNDLE_PATH": str(bundle), "TRITON_JIT_OFFLINE": "1",
                                            "PYTHONHOME": "/nonexistent", "FAKE_CUDA_FAST_BLOCK": "64"})
    assert out == {"tunings": 0, "compiles": 0, "config": 2, "source": "bundle", "libpython": False}


def test_a_tuning_entry_is_for_its_kernel_source(tmp_path):
    kernel = tmp_path / "decorated_kernels.py"
    kernel.write_text(open(KERNEL).read())
    cache = tmp_path / "cache"
    assert probe(cache, kernel=kernel)[0]["tunings"] == 1
    assert probe(cache, kernel=kernel)[0]["tunings"] == 0
    kernel.write_text(kernel.read_text().replace("* factor)", "* factor + 0.0)"))
    assert probe(cache, kernel=kernel)[0]["tunings"] == 1


def test_an_untuned_key_offline_names_the_key_and_the_remedy(tmp_path):
    probe(tmp_path / "cache")
    result = probe(tmp_path / "cache", n="1000", env={"TRITON_JIT_OFFLINE": "1"}, check=False)
    assert result.returncode == 1
    assert "scale_tuned: no tuned config for key (n=1000, *fp32, *fp32) on fake" in result.stderr
    # n=8192 is another key, whose variants (n divisible by 16, every BLOCK dividing it) were compiled.
    out, log = probe(tmp_path / "cache", n="8192",
                     env={"TRITON_JIT_OFFLINE": "1", "TRITON_JIT_AUTOTUNE_FALLBACK": "first"})
    assert out["config"] == 0 and out["source"] == "fallback" and out["tunings"] == 0
    assert "was never tuned on fake; using config 0 (the fallback) in offline mode" in log


def test_a_damaged_tuning_entry_is_removed_and_tuned_again(tmp_path):
    cache = tmp_path / "cache"
    probe(cache)
    (path,) = cache_entries.files(cache, ".tuning")
    kind, header, payload = cache_entries.read(path)
    cache_entries.write(path, kind, header, b'{"config": 99, "milliseconds": [1.0]}')
    result, log = probe(cache)
    assert result["tunings"] == 1 and "is damaged" in log
