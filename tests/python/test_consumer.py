"""A user's project against triton_jit: the installed package through find_package (core and
torch targets), pkg-config, and the source tree through add_subdirectory. Each builds and runs
a program that compiles a kernel (for cuda:90 when no GPU is present)."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

CONSUMER = os.path.join(ROOT, "tests", "consumer")
ENV = dict(os.environ, TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")


def run(*args, **kwargs):
    result = subprocess.run(list(args), capture_output=True, text=True, env=ENV, **kwargs)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout}\n{result.stderr}"
    return result.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    run("cmake", "--install", BUILD, "--prefix", str(prefix))
    return prefix


def test_find_package_consumer_builds_and_runs(installed, tmp_path):
    build = tmp_path / "build"
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={installed}",
        "-DCONSUMER_WITH_TORCH=ON")
    run("cmake", "--build", str(build))
    out = run(str(build / "consumer"))
    assert "variant: scale x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256 for cuda:90" in out
    assert "variant: scale x_ptr: *fp16:16" in run(str(build / "consumer_torch"))


def test_installed_library_uses_installed_scripts(installed):
    assert (installed / "share" / "triton_jit" / "scripts" / "triton_jit_compile.py").is_file()
    assert (installed / "lib" / "triton_jit" / "libtriton_jit_python.so").is_file()
    assert os.path.islink(installed / "lib" / "libtriton_jit.so.0")


def test_pkg_config_builds_a_program(installed, tmp_path):
    if shutil.which("pkg-config") is None:
        pytest.skip("pkg-config is not installed")
    env = dict(ENV, PKG_CONFIG_PATH=str(installed / "lib" / "pkgconfig"))
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "triton_jit"], capture_output=True, text=True,
                           env=env, check=True).stdout.split()
    exe = tmp_path / "consumer_pc"
    run("g++", "-std=c++20", f'-DCONSUMER_KERNEL="{CONSUMER}/scale.py"', os.path.join(CONSUMER, "main.cpp"),
        "-o", str(exe), *flags, f"-Wl,-rpath,{installed / 'lib'}")
    assert "variant: scale" in run(str(exe))


def test_add_subdirectory_consumer_builds_and_runs(tmp_path):
    build = tmp_path / "build"
    python = os.environ.get("TRITON_JIT_PYTHON", sys.executable)
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DTRITON_JIT_SOURCE_DIR={ROOT}",
        f"-DTRITON_JIT_PYTHON={python}", "-DCMAKE_BUILD_TYPE=Release")
    run("cmake", "--build", str(build), "--target", "consumer")
    assert "for cuda:90" in run(str(build / "consumer"))
