"""What a newcomer sees when the Python that compiles kernels is the wrong one: a Python without
Triton, a venv of another minor version than the libpython loaded. Each error names the
interpreter it tried and the variable that fixes it. Run through triton_jit_aot, which compiles
in-process like any program."""
import json
import os
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

AOT = os.path.join(BUILD, "bin", "triton_jit_aot")
SCALE = os.path.join(ROOT, "tests", "consumer", "scale.py")


def compile_with(tmp_path, python):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"target": "cuda:90", "kernels": [
        {"kernel": SCALE, "function": "scale", "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16", 256]]}]}))
    env = dict(os.environ, TRITON_JIT_PYTHON=str(python), TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"),
               CUDA_VISIBLE_DEVICES="")
    env.pop("TRITON_JIT_LIBPYTHON", None)
    return subprocess.run([AOT, str(manifest), "-o", str(tmp_path / "bundle")], capture_output=True, text=True,
                          env=env)


def make_venv(path):
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(path)], check=True)
    return path / "bin" / "python"


def test_a_python_without_triton_is_named_with_the_variable_that_fixes_it(tmp_path):
    python = make_venv(tmp_path / "empty")
    result = compile_with(tmp_path, python)
    assert result.returncode == 1, result.stderr
    assert "No module named 'triton'" in result.stderr
    assert f"'{python}'" in result.stderr and f"Python {sys.version_info[0]}.{sys.version_info[1]}" in result.stderr
    assert "TRITON_JIT_PYTHON" in result.stderr and "pip install triton" in result.stderr


@pytest.mark.parametrize("kind", ["missing", "directory", "tilde", "not executable"])
def test_a_triton_jit_python_that_is_not_an_executable_is_named_as_the_problem(tmp_path, kind):
    python = {"missing": tmp_path / "nowhere" / "python", "directory": tmp_path,
              "tilde": "~/venv/bin/python", "not executable": tmp_path / "python"}[kind]
    if kind == "not executable":
        python.write_text("")
    result = compile_with(tmp_path, python)
    assert result.returncode == 1
    expected = {"missing": "does not exist", "directory": "is a directory",
                "tilde": "does not exist ('~' is not expanded here: give the full path)",
                "not executable": "is not executable"}[kind]
    assert f"TRITON_JIT_PYTHON '{python}' {expected}" in result.stderr, result.stderr
    assert "No module named" not in result.stderr


def test_a_venv_of_another_python_version_is_refused_before_it_starts(tmp_path):
    venv = tmp_path / "other"
    (venv / "bin").mkdir(parents=True)
    os.symlink(sys.executable, venv / "bin" / "python")
    other = f"{sys.version_info[0]}.{sys.version_info[1] + 1}"
    (venv / "pyvenv.cfg").write_text(f"home = /usr/bin\ninclude-system-site-packages = false\nversion = {other}.0\n")
    result = compile_with(tmp_path, venv / "bin" / "python")
    assert result.returncode == 1, result.stderr
    assert f"virtual environment of Python {other}" in result.stderr
    assert f"libpython loaded is Python {sys.version_info[0]}.{sys.version_info[1]}" in result.stderr
    assert "TRITON_JIT_LIBPYTHON" in result.stderr


def test_the_right_python_compiles_and_progress_suits_a_log(tmp_path):
    result = compile_with(tmp_path, sys.executable)
    assert result.returncode == 0, result.stderr
    assert "1 variants of 1 kernels written" in result.stderr
    # Not a terminal: a line as each variant starts (a long compile shows what runs) and ends, no \r.
    assert "[1/1] compiling scale kernels[0].signatures[0]\n" in result.stderr
    assert "[1/1] scale (x_ptr: *fp32:16" in result.stderr and "\r" not in result.stderr


def test_a_triton_older_than_the_minimum_is_refused_in_one_sentence(tmp_path):
    python = make_venv(tmp_path / "old")
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    os.makedirs(os.path.join(site, "triton"))
    with open(os.path.join(site, "triton", "__init__.py"), "w") as init:
        init.write('__version__ = "3.2.0"\n')
    result = compile_with(tmp_path, python)
    assert result.returncode == 1, result.stderr
    assert "the installed Triton 3.2.0" in result.stderr and "older than 3.3, the oldest triton_jit supports" in result.stderr
    assert "TRITON_JIT_PYTHON" in result.stderr


def test_a_home_triton_cannot_write_names_the_variable_that_moves_its_cache(tmp_path):
    env = dict(os.environ, HOME="/dev/null", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_JIT_TARGET="cuda:90",
               CUDA_VISIBLE_DEVICES="")
    env.pop("TRITON_CACHE_DIR", None)
    env.pop("TRITON_HOME", None)
    result = subprocess.run([os.path.join(BUILD, "bin", "cache_probe"), SCALE, "scale"], capture_output=True, text=True,
                            env=env)
    assert result.returncode == 1
    assert "Triton could not use its own cache directory '/dev/null/.triton/cache'" in result.stderr, result.stderr
    assert "set TRITON_CACHE_DIR to a writable directory" in result.stderr
