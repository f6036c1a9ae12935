"""The persistent cache, in fresh processes (tests/cpu/cache_probe.cpp): a warm process needs no
Python; every input of a variant invalidates it; races, damage and foreign files are handled."""
import json
import os
import shutil
import stat
import subprocess
import threading

import pytest

from conftest import BUILD, ROOT

PROBE = os.path.join(BUILD, "bin", "cache_probe")
DEMO = os.path.join(BUILD, "bin", "triton_jit_demo")
KERNELS = os.path.join(ROOT, "tests", "kernels")


def probe(cache, kernel, function="scale", *extra, env=None, check=True):
    environment = dict(os.environ, TRITON_JIT_CACHE_DIR=str(cache), TRITON_JIT_TARGET="cuda:90",
                       CUDA_VISIBLE_DEVICES="")
    environment.update(env or {})
    result = subprocess.run([PROBE, str(kernel), function, *extra], capture_output=True, text=True,
                            env=environment, timeout=600)
    if check:
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr
    return result


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "src" / "scale.py"
    path.parent.mkdir()
    shutil.copy(os.path.join(ROOT, "tests", "consumer", "scale.py"), path)
    return path


def entries(cache, suffix):
    return [os.path.join(d, f) for d, _, files in os.walk(cache) for f in files if f.endswith(suffix)]


def test_warm_process_loads_without_python(tmp_path, kernel):
    cache = tmp_path / "cache"
    cold, _ = probe(cache, kernel)
    assert cold["compiles"] == 1 and cold["libpython"]
    warm, _ = probe(cache, kernel, env={"PYTHONHOME": "/nonexistent", "TRITON_JIT_OFFLINE": "1"})
    assert warm == dict(cold, compiles=0, libpython=False, bridge=False)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700


def test_demo_runs_offline_from_a_warm_cache_and_fails_clearly_from_an_empty_one(tmp_path):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_JIT_TARGET="cuda:90",
               CUDA_VISIBLE_DEVICES="")
    subprocess.run([DEMO], env=env, check=True, capture_output=True, timeout=900)
    offline = dict(env, TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    warm = subprocess.run([DEMO], env=offline, capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert "Launching skipped" in warm.stdout and "libpython loaded: no" in warm.stdout
    empty = subprocess.run([DEMO], env=dict(offline, TRITON_JIT_CACHE_DIR=str(tmp_path / "empty")),
                           capture_output=True, text=True, timeout=300)
    assert empty.returncode != 0
    assert "add_kernel: its static signature is neither in the cache" in empty.stderr
    assert "compiling is disabled (offline mode)" in empty.stderr and "triton_jit_aot" in empty.stderr


def test_offline_miss_names_kernel_signature_and_remedy(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    result = probe(cache, kernel, "scale", "8", env={"TRITON_JIT_OFFLINE": "1"}, check=False)
    assert result.returncode == 1
    assert ("scale: the variant (x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256) for "
            "cuda:90 with num_warps=8") in result.stderr
    assert "Precompile it" in result.stderr


def test_changed_kernel_source_is_a_miss(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    kernel.write_text(kernel.read_text().replace("* factor", "* factor * 1.0"))
    again, _ = probe(cache, kernel)
    assert again["compiles"] == 1


def test_changed_dependency_of_a_called_jit_function_is_a_miss(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(os.path.join(KERNELS, "pkg"), package)
    cache = tmp_path / "cache"
    spec = str(package / "scale.py")
    first, _ = probe(cache, spec, "scale_kernel")
    assert first["compiles"] == 1
    assert probe(cache, spec, "scale_kernel")[0]["compiles"] == 0
    helpers = package / "helpers.py"
    helpers.write_text(helpers.read_text().replace("x * 2", "x * 3"))
    assert probe(cache, spec, "scale_kernel")[0]["compiles"] == 1


def test_option_target_and_triton_environment_changes_are_misses(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    assert probe(cache, kernel, "scale", "8")[0]["compiles"] == 1
    assert probe(cache, kernel, env={"TRITON_JIT_TARGET": "cuda:80"})[0]["compiles"] == 1
    assert probe(cache, kernel, env={"TRITON_DEFAULT_FP_FUSION": "0"})[0]["compiles"] == 1
    assert probe(cache, kernel)[0]["compiles"] == 0


def test_changed_triton_installation_is_a_miss(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    for path in entries(cache, ".variant"):
        with open(path, "rb") as f:
            magic, header, payload = f.read().split(b"\n", 2)
        fields = json.loads(header)
        fields["triton"]["hash"] = "0" * 16  # as if another Triton had compiled it
        with open(path, "wb") as f:
            f.write(magic + b"\n" + json.dumps(fields).encode() + b"\n" + payload)
    assert probe(cache, kernel)[0]["compiles"] == 1


@pytest.mark.parametrize("damage", ["bad_json", "checksum", "truncated", "empty"])
def test_damaged_entry_is_removed_and_rebuilt(tmp_path, kernel, damage):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, ".variant")
    data = open(path, "rb").read()
    magic, header, payload = data.split(b"\n", 2)
    damaged = {"bad_json": magic + b"\n{not json\n" + payload,
               "checksum": data[:-10] + bytes(b ^ 0xFF for b in data[-10:]),
               "truncated": data[: len(data) // 2],
               "empty": b""}[damage]
    open(path, "wb").write(damaged)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "is damaged" in log and "removing it and compiling again" in log
    assert probe(cache, kernel)[0]["compiles"] == 0  # rebuilt, valid


def test_two_processes_racing_on_one_variant_leave_one_valid_entry(tmp_path, kernel):
    cache = tmp_path / "cache"
    results = []

    def run():
        results.append(probe(cache, kernel)[0])

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and all(r["cubin"] > 0 for r in results)
    assert len(entries(cache, ".variant")) == 1
    assert not [p for d, _, files in os.walk(cache) for p in files if ".tmp." in p]
    assert probe(cache, kernel)[0]["compiles"] == 0


def test_world_writable_cache_directory_is_refused(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    os.chmod(cache, 0o777)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "is writable by everyone; refusing to use it" in log


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_entry_owned_by_another_user_is_refused(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, ".variant")
    os.chown(path, 12345, 12345)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "belongs to another user; refusing to load it" in log
