"""scripts/package.sh builds the .deb and .rpm packages; lintian finds no errors; the .deb
files, unpacked into a root made for the test, serve a consumer build that compiles a kernel."""
import glob
import os
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT

CONSUMER = os.path.join(ROOT, "tests", "consumer")

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_JIT_SKIP_PACKAGING") == "1" or os.geteuid() != 0,
    reason="packaging needs root to install its tools (it runs in CI; gpu_check.sh skips it)")


def run(*args, env=None):
    result = subprocess.run(list(args), capture_output=True, text=True, env=env or os.environ)
    assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    run("bash", os.path.join(ROOT, "scripts", "package.sh"), env=dict(os.environ, TRITON_JIT_DIST_DIR=str(out)))
    return out


def test_packages_are_built_and_lintian_finds_no_error(dist):
    assert glob.glob(str(dist / "libtriton-jit0_*_amd64.deb"))
    assert glob.glob(str(dist / "libtriton-jit-dev_*_amd64.deb"))
    assert glob.glob(str(dist / "triton-jit-[0-9]*.x86_64.rpm"))
    assert glob.glob(str(dist / "triton-jit-devel-*.x86_64.rpm"))
    lintian = (dist / "lintian.txt").read_text()
    assert not [line for line in lintian.splitlines() if line.startswith("E:")], lintian


def test_runtime_package_declares_its_dependencies(dist):
    deb = glob.glob(str(dist / "libtriton-jit0_*_amd64.deb"))[0]
    depends = run("dpkg-deb", "-f", deb, "Depends")
    assert "libstdc++6" in depends and "libpython3" in depends and "python3" in depends


def test_consumer_builds_against_the_unpacked_debs(dist, tmp_path):
    root = tmp_path / "root"
    for deb in glob.glob(str(dist / "*.deb")):
        if "dbgsym" not in deb:
            run("dpkg", "-x", deb, str(root))
    build = tmp_path / "build"
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={root / 'usr'}")
    run("cmake", "--build", str(build))
    libpython = os.path.join(sysconfig.get_config_var("LIBDIR"), sysconfig.get_config_var("INSTSONAME"))
    env = dict(os.environ, TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="",
               TRITON_JIT_PYTHON=sys.executable, TRITON_JIT_LIBPYTHON=libpython)
    out = run(str(build / "consumer"), env=env)
    assert "variant: scale" in out and "for cuda:90" in out
