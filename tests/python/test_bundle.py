"""Ahead of time: triton_jit_aot compiles a manifest into a bundle; a program that embeds the
bundle (triton_jit_embed_bundle) runs offline with no Python, no Triton and no kernel source."""
import json
import os
import shutil
import subprocess

import pytest

from conftest import BUILD, ROOT

AOT = os.path.join(BUILD, "bin", "triton_jit_aot")
PROBE = os.path.join(BUILD, "bin", "cache_probe")
CONSUMER = os.path.join(ROOT, "tests", "consumer")
ENV = dict(os.environ, CUDA_VISIBLE_DEVICES="")


def run(*args, env=None):
    result = subprocess.run(list(args), capture_output=True, text=True, env=env or ENV, timeout=900)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    work = tmp_path_factory.mktemp("aot")
    shutil.copy(os.path.join(CONSUMER, "scale.py"), work / "scale.py")
    manifest = {"target": "cuda:90", "kernels": [{
        "kernel": "scale.py", "function": "scale", "options": {"num_warps": 4, "num_stages": 3},
        "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16"], ["*fp16", "*fp16", "fp32", "i32"]]}]}
    (work / "manifest.json").write_text(json.dumps(manifest))
    result = run(AOT, str(work / "manifest.json"), "-o", str(work / "bundle"))
    assert "2/2 scale" in result.stderr and "2 variants in" in result.stderr
    return work / "bundle"


def test_bundle_directory_serves_as_a_cache(bundle, tmp_path):
    env = dict(ENV, TRITON_JIT_CACHE_DIR=str(bundle), TRITON_JIT_TARGET="cuda:90", TRITON_JIT_OFFLINE="1",
               PYTHONHOME="/nonexistent")
    out = run(PROBE, os.path.join(CONSUMER, "scale.py"), "scale", env=env).stdout
    assert json.loads(out)["compiles"] == 0 and not json.loads(out)["libpython"]


def test_program_with_an_embedded_bundle_needs_no_python_or_source(bundle, tmp_path):
    prefix = tmp_path / "prefix"
    run("cmake", "--install", BUILD, "--prefix", str(prefix))
    build = tmp_path / "build"
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DCONSUMER_BUNDLE={bundle}")
    run("cmake", "--build", str(build))
    shutil.rmtree(bundle.parent / "bundle", ignore_errors=False)  # only the embedded copy is left
    env = dict(ENV, TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"), TRITON_JIT_TARGET="cuda:90",
               TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent", TRITON_JIT_LIBPYTHON="/nonexistent")
    out = run(str(build / "consumer"), env=env).stdout
    assert "variant: scale x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256 for cuda:90" in out
    assert not os.listdir(tmp_path / "empty" / "v1")  # nothing was compiled or written
