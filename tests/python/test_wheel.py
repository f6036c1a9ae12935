"""pip builds the wheel (scikit-build-core, pyproject.toml) against the pinned torch. Installed
into a fresh virtual environment (which sees torch and triton through a .pth file, not this
repository), `import triton_jit` loads the operators into torch.ops.triton_jit, its settings
work, it compiles ahead for a target without a GPU, and `python -m triton_jit.aot` compiles a
manifest."""
import glob
import json
import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT

# The source tree to build: this repository, or the copy the packages were built from, and the
# build directory they were built in (scripts/package.sh, as scripts/test.sh passes them).
SOURCE = os.environ.get("TRITON_JIT_WHEEL_SOURCE", ROOT)
BUILD_DIR = os.environ.get("TRITON_JIT_WHEEL_BUILD_DIR") or None

pytestmark = pytest.mark.skipif(os.environ.get("TRITON_JIT_SKIP_PACKAGING") == "1",
                                reason="the wheel build runs in CI (gpu_check.sh skips packaging)")


def run(*args, env=None, cwd=None):
    result = subprocess.run(list(map(str, args)), capture_output=True, text=True, env=env or os.environ, cwd=cwd)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result.stdout + result.stderr


def distribution_flags():
    """The compile flags of the Debian packages' build (packaging/debian/rules: dpkg-buildflags with
    every hardening and reproducibility option, CPPFLAGS after CXXFLAGS as debhelper passes them),
    where dpkg-buildflags exists. The wheel is then hardened as the packages are, and compiled as
    they are: its units hit ccache from the packaging stage's build (scripts/test.sh)."""
    if shutil.which("dpkg-buildflags") is None:
        return {}
    env = dict(os.environ, DEB_BUILD_MAINT_OPTIONS="hardening=+all reproducible=+all")
    def get(name):
        return run("dpkg-buildflags", "--get", name, env=env, cwd=SOURCE).strip()
    return {"CXXFLAGS": f"{get('CXXFLAGS')} {get('CPPFLAGS')}", "LDFLAGS": get("LDFLAGS")}


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # The locale debhelper builds in: ccache keys on it, and the packages' compiles are then this
    # build's.
    env = dict(os.environ, CMAKE_BUILD_PARALLEL_LEVEL=str(os.cpu_count() or 2), LC_ALL="C.UTF-8",
               **distribution_flags())
    where = [f"--config-settings=build-dir={BUILD_DIR}", "--config-settings=cmake.define.CMAKE_CXX_COMPILER=c++"] \
        if BUILD_DIR else []
    run(sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", *where, "-w", out / "dist", SOURCE,
        env=env)
    wheels = glob.glob(str(out / "dist" / "triton_jit-*.whl"))
    assert len(wheels) == 1, wheels
    env_dir = out / "venv"
    run(getattr(sys, "_base_executable", sys.executable), "-m", "venv", "--without-pip", env_dir)
    python = env_dir / "bin" / "python"
    run(sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "-q", wheels[0])
    site = run(python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])").strip()
    # torch and triton from this environment, without installing them again
    with open(os.path.join(site, "shared_dependencies.pth"), "w") as pth:
        pth.write(sysconfig.get_paths()["purelib"] + "\n")
    return python


def test_import_loads_the_operators_from_the_installed_wheel(venv, tmp_path):
    out = run(venv, "-c", f"""
import torch, triton_jit
print("from", triton_jit.__file__, triton_jit.__version__)
y = torch.ops.triton_jit.mm(torch.empty(8, 16, device="meta", dtype=torch.half), torch.empty(16, 4, device="meta", dtype=torch.half))
print("mm on meta:", list(y.shape), y.dtype)
print("stand-ins:", len(triton_jit.aten_stand_ins()))
triton_jit.set_cache_dir({str(tmp_path / 'cache')!r})
print("cache:", triton_jit.cache_dir())
triton_jit.set_offline(True); print("offline:", triton_jit.offline()); triton_jit.set_offline(False)
""", env=dict(os.environ, CUDA_VISIBLE_DEVICES=""), cwd=tmp_path)
    assert f"from {venv.parent.parent}" in out and "0.1.0" in out
    assert "mm on meta: [8, 4] torch.float16" in out
    assert "stand-ins: 42" in out and f"cache: {tmp_path / 'cache'}" in out and "offline: True" in out


def test_warmup_compiles_ahead_without_a_gpu(venv, tmp_path):
    out = run(venv, "-c", "import torch, triton_jit; print('\\n'.join(triton_jit.warmup(torch.float16)))",
              env=dict(os.environ, CUDA_VISIBLE_DEVICES="", TRITON_JIT_TARGET="cuda:90",
                       TRITON_JIT_CACHE_DIR=str(tmp_path / "cache")), cwd=tmp_path)
    lines = [line for line in out.splitlines() if " for cuda:90" in line]
    assert len(lines) >= 5 and any("*fp16" in line for line in lines), out


def test_python_m_triton_jit_aot_compiles_a_manifest(venv, tmp_path):
    assert "triton_jit_aot 0.1.0" in run(venv, "-m", "triton_jit.aot", "--version", cwd=tmp_path)
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"target": "cuda:90", "kernels": [{
        "kernel": os.path.join(ROOT, "tests", "consumer", "scale.py"), "function": "scale",
        "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16", 256]]}]}))
    out = run(venv, "-m", "triton_jit.aot", manifest, "-o", tmp_path / "bundle",
              env=dict(os.environ, CUDA_VISIBLE_DEVICES="", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache")), cwd=tmp_path)
    assert "1 variants of 1 kernels written" in out


def test_another_torch_is_named_at_import_instead_of_an_undefined_symbol(venv):
    # The torch found, as another minor version would report itself.
    probe = ("import torch; torch.__version__ = '2.9.1+cu128'\n"
             "try:\n    import triton_jit\nexcept ImportError as e:\n    print('REFUSED', e)\n")
    out = run(venv, "-c", probe)
    built = run(venv, "-c", "from triton_jit._build_info import TORCH_VERSION; print(TORCH_VERSION)").strip()
    assert built.count(".") == 1, built
    assert f"REFUSED triton_jit 0.1.0 was built against torch {built}, and this environment has torch 2.9.1+cu128" in out
    assert f"pip install 'torch=={built}.*'" in out


def test_the_wheel_requires_the_torch_minor_version_it_was_built_against(venv):
    import torch
    import zipfile
    (wheel,) = glob.glob(str(venv.parent.parent.parent / "dist" / "triton_jit-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        (metadata,) = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        requires = [line for line in archive.read(metadata).decode().splitlines() if line.startswith("Requires-Dist:")]
        libraries = sorted(os.path.basename(n) for n in archive.namelist() if "/lib/libtriton_jit_ops" in n)
    minor = ".".join(torch.__version__.split("+")[0].split(".")[:2])
    assert f"Requires-Dist: torch=={minor}.*" in requires, requires
    assert any(line.startswith("Requires-Dist: triton") for line in requires), requires
    # the loader, and the operators named after the torch they need
    assert [n for n in libraries if n.endswith(".so.0")] == [f"libtriton_jit_ops-torch{minor}.so.0",
                                                              "libtriton_jit_ops.so.0"], libraries


def test_the_python_entry_compiles_from_the_installed_wheel(venv, tmp_path):
    kernels = os.path.join(ROOT, "tests", "kernels", "python_entry", "kernels.py")
    out = run(venv, "-c", f"""
import torch, triton_jit
k = triton_jit.load({kernels!r}, "add")
x = torch.empty(64)
print("signature:", k.warmup(x, x, x, 64, BLOCK=64)["signature"])
""", env=dict(os.environ, CUDA_VISIBLE_DEVICES="", TRITON_JIT_TARGET="cuda:90",
              TRITON_JIT_CACHE_DIR=str(tmp_path / "cache")), cwd=tmp_path)
    assert "signature: x_ptr: *fp32:16, y_ptr: *fp32:16, out_ptr: *fp32:16, n: i32:16, BLOCK=64" in out, out


def test_the_environment_variable_installs_the_redirect_at_interpreter_start(venv, tmp_path):
    # The wheel's .pth imports triton_jit at start when TRITON_JIT_INSTALL is set, and only then.
    probe = "import sys; print('installed:', 'triton_jit' in sys.modules and sys.modules['triton_jit'].installed())"
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    assert "installed: True" in run(venv, "-c", probe, env=dict(env, TRITON_JIT_INSTALL="1"), cwd=tmp_path)
    assert "installed: False" in run(venv, "-c", probe, env=env, cwd=tmp_path)


def test_the_wheel_records_no_build_paths_and_finds_its_environments_python(venv, tmp_path):
    package = run(venv, "-c", "import os, triton_jit; print(os.path.dirname(triton_jit.__file__))",
                  env=dict(os.environ, CUDA_VISIBLE_DEVICES=""), cwd=tmp_path).strip().splitlines()[-1]
    build_paths = [ROOT.encode(), SOURCE.encode(), os.path.dirname(os.path.dirname(sys.executable)).encode()]
    binaries = [p for p in glob.glob(os.path.join(package, "**", "*"), recursive=True)
                if os.path.isfile(p) and not os.path.islink(p) and open(p, "rb").read(4) == b"\x7fELF"]
    assert len(binaries) >= 5, binaries
    for path in binaries:
        data = open(path, "rb").read()
        assert not any(b in data for b in build_paths), f"{path} records a path of the build machine"
    # The installed triton_jit_aot, run directly (no TRITON_JIT_PYTHON), compiles with the Python
    # of the environment it is installed in.
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"target": "cuda:90", "kernels": [{
        "kernel": os.path.join(ROOT, "tests", "consumer", "scale.py"), "function": "scale",
        "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16", 256]]}]}))
    env = {k: v for k, v in os.environ.items() if k not in ("TRITON_JIT_PYTHON", "TRITON_JIT_LIBPYTHON")}
    env.update(CUDA_VISIBLE_DEVICES="", TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), PATH="/usr/bin:/bin")
    out = run(os.path.join(package, "bin", "triton_jit_aot"), manifest, "-o", tmp_path / "bundle", env=env, cwd=tmp_path)
    assert "1 variants of 1 kernels written" in out
