"""A user's project against triton_jit: the installed package through find_package (the core,
torch and aot components), pkg-config, and the source tree through add_subdirectory. Each builds
and runs a program that compiles a kernel (for cuda:90 when no GPU is present), calls an operator
on Meta tensors, or carries a bundle made at build time."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD, ROOT

# These tests run CMake builds: one pytest-xdist worker takes them all, so that two builds never
# share CI's two cores (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("build")

CONSUMER = os.path.join(ROOT, "tests", "consumer")
ENV = dict(os.environ, TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")


def torch_prefix():
    import torch.utils
    return torch.utils.cmake_prefix_path


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
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={installed};{torch_prefix()}",
        "-DCONSUMER_WITH_TORCH=ON", "-DCONSUMER_WITH_AOT=ON")
    run("cmake", "--build", str(build))
    out = run(str(build / "consumer"))
    assert "variant: scale x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256 for cuda:90" in out
    assert "variant: scale x_ptr: *fp16:16" in run(str(build / "consumer_torch"))
    assert "triton_jit::mm on meta: [8, 4] Half" in run(str(build / "consumer_ops"))
    # The bundle made at build time serves the variant with compiling disabled and an empty cache.
    offline = dict(ENV, TRITON_JIT_OFFLINE="1", TRITON_JIT_CACHE_DIR=str(tmp_path / "empty-cache"))
    served = subprocess.run([str(build / "consumer_bundled")], capture_output=True, text=True, env=offline)
    assert served.returncode == 0 and "for cuda:90" in served.stdout, served.stderr
    refused = subprocess.run([str(build / "consumer")], capture_output=True, text=True, env=offline)
    assert refused.returncode == 1 and "offline mode" in refused.stderr


def without_cuda_toolkit():
    """The environment of a machine with pip's torch and no CUDA toolkit: no nvcc on PATH, no
    variable naming one (CMake is also told not to find one)."""
    env = {k: v for k, v in ENV.items() if k not in ("CUDA_HOME", "CUDA_PATH", "CUDAToolkit_ROOT", "CUDACXX")}
    env["PATH"] = os.pathsep.join(d for d in env.get("PATH", "").split(os.pathsep)
                                  if d and not os.path.exists(os.path.join(d, "nvcc")))
    return env


def test_the_torch_component_needs_no_cuda_toolkit(installed, tmp_path):
    build = tmp_path / "build"
    env = without_cuda_toolkit()
    for args in (("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", "-DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON",
                  f"-DCMAKE_PREFIX_PATH={installed};{torch_prefix()}", "-DCONSUMER_WITH_TORCH=ON"),
                 ("cmake", "--build", str(build))):
        result = subprocess.run(list(args), capture_output=True, text=True, env=env)
        assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    assert "variant: scale x_ptr: *fp16:16" in run(str(build / "consumer_torch"))
    assert "triton_jit::mm on meta: [8, 4] Half" in run(str(build / "consumer_ops"))


def torch_of_another_version(root, minor):
    """A libtorch tree that reports itself as torch 2.<minor>: the real one's files, linked, but for
    the version header."""
    real = os.path.dirname(os.path.dirname(torch_prefix()))  # <torch>/share/cmake -> <torch>
    (root / "share" / "cmake" / "Torch").mkdir(parents=True)
    (root / "share" / "cmake" / "Torch" / "TorchConfig.cmake").write_text("")
    os.symlink(os.path.join(real, "lib"), root / "lib")
    include = root / "include"
    include.mkdir()
    for entry in os.listdir(os.path.join(real, "include")):
        if entry != "torch":
            os.symlink(os.path.join(real, "include", entry), include / entry)
    (include / "torch").mkdir()
    for entry in os.listdir(os.path.join(real, "include", "torch")):
        if entry != "headeronly":
            os.symlink(os.path.join(real, "include", "torch", entry), include / "torch" / entry)
    (include / "torch" / "headeronly").mkdir()
    (include / "torch" / "headeronly" / "version.h").write_text(
        f"#pragma once\n#define TORCH_VERSION_MAJOR 2\n#define TORCH_VERSION_MINOR {minor}\n#define TORCH_VERSION_PATCH 0\n")
    return root / "share" / "cmake"


def test_a_libtorch_of_another_minor_version_is_named_at_configure_time(installed, tmp_path):
    import torch
    built = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    other = torch_of_another_version(tmp_path / "torch", 9)
    err = " ".join(configure_error(tmp_path, f"{installed};{other}", "-DCONSUMER_WITH_TORCH=ON").split())
    assert "component torch: libtorch at" in err and f"is torch 2.9, but the installed adapter and operators were " \
        f"built against torch {built}" in err, err


COMPAT_CONSUMER = os.path.join(ROOT, "tests", "compat_consumer")


def check_compat_consumer(prefix, tmp_path, env=None):
    """The project written as libtriton_jit's users write theirs builds unchanged against the
    installed package and, with its kernels found relative to the working directory, compiles
    them through libtriton_jit's compile() (and on a GPU runs its ops against ATen)."""
    build = tmp_path / "compat"
    env = env or ENV
    for args in (("cmake", "-S", COMPAT_CONSUMER, "-B", str(build), "-G", "Ninja",
                  f"-DCMAKE_PREFIX_PATH={prefix};{torch_prefix()}"), ("cmake", "--build", str(build))):
        result = subprocess.run(list(args), capture_output=True, text=True, env=env)
        assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    result = subprocess.run([str(build / "test_my_ops")], capture_output=True, text=True, env=env,
                            cwd=os.path.join(COMPAT_CONSUMER, "kernels"))
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_a_libtriton_jit_style_project_builds_unchanged_and_compiles_its_kernels(installed, tmp_path):
    out = check_compat_consumer(installed, tmp_path, dict(ENV, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache")))
    assert "compat consumer: kernels compiled; no GPU, launching was skipped" in out


def configure_error(tmp_path, prefix_path, *options):
    result = subprocess.run(["cmake", "-S", CONSUMER, "-B", str(tmp_path / "build"), "-G", "Ninja",
                             f"-DCMAKE_PREFIX_PATH={prefix_path}", *options], capture_output=True, text=True, env=ENV)
    assert result.returncode != 0, result.stdout
    return result.stderr.replace("\n", " ")


def test_a_required_component_that_cannot_be_found_says_why(installed, tmp_path):
    # torch installed, libtorch not pointed at
    err = configure_error(tmp_path, str(installed), "-DCONSUMER_WITH_TORCH=ON")
    assert "component torch: libtorch not found: set Torch_DIR" in " ".join(err.split()), err


def test_components_not_installed_are_named_with_the_package_that_has_them(tmp_path):
    prefix = tmp_path / "core-only"
    for component in ("runtime", "dev"):
        run("cmake", "--install", BUILD, "--prefix", str(prefix), "--component", component)
    assert not (prefix / "bin" / "triton_jit_aot").exists()
    err = " ".join(configure_error(tmp_path, f"{prefix};{torch_prefix()}", "-DCONSUMER_WITH_TORCH=ON",
                                   "-DCONSUMER_WITH_AOT=ON").split())
    assert "component aot: triton_jit_aot is not installed (Debian: triton-jit-tools" in err, err
    assert "component torch: the libtorch adapter and operators are not installed (Debian: libtriton-jit-torch-dev" in err
    # The core alone still serves a plain consumer.
    build = tmp_path / "plain"
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}")
    run("cmake", "--build", str(build))
    assert "for cuda:90" in run(str(build / "consumer"))


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
    # The standard the headers need (g++ 12 defaults to C++17), and normalised absolute paths.
    assert "-std=c++20" in flags and f"-I{installed / 'include'}" in flags and f"-L{installed / 'lib'}" in flags
    exe = tmp_path / "consumer_pc"
    run("g++", f'-DCONSUMER_KERNEL="{CONSUMER}/scale.py"', os.path.join(CONSUMER, "main.cpp"),
        "-o", str(exe), *flags, f"-Wl,-rpath,{installed / 'lib'}")
    assert "variant: scale" in run(str(exe))


def test_add_subdirectory_consumer_builds_and_runs(tmp_path):
    build = tmp_path / "build"
    python = os.environ.get("TRITON_JIT_PYTHON", sys.executable)
    # No build type (no optimization), the units in batches: this compiles the whole core again,
    # in a binary directory whose paths no other build shares, so ccache has nothing for it on a
    # new machine (-O3 took 1.7x as long; batched, it takes 2.1x less: a user's project may
    # batch too). The main build compiles every file alone.
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DTRITON_JIT_SOURCE_DIR={ROOT}",
        f"-DTRITON_JIT_PYTHON={python}", "-DCMAKE_UNITY_BUILD=ON")
    run("cmake", "--build", str(build), "--target", "consumer")
    assert "for cuda:90" in run(str(build / "consumer"))
