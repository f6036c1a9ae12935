"""scripts/package.sh builds the .deb and .rpm packages (twice for the .deb files, from two
directories, which must give the same bytes); lintian finds no errors. The packages, installed
into roots made for the test (a merged-/usr Debian layout and an RPM layout with lib64), serve a
consumer built with find_package (core, torch and aot components), an operator call on Meta
tensors from C++ and from Python, and triton_jit_aot, all run from the installed files."""
import glob
import json
import os
import pathlib
import subprocess
import sys
import sysconfig

import pytest

from conftest import ROOT
from test_consumer import check_compat_consumer

CONSUMER = os.path.join(ROOT, "tests", "consumer")
TRIPLET = "x86_64-linux-gnu"

pytestmark = pytest.mark.skipif(
    os.environ.get("TRITON_JIT_SKIP_PACKAGING") == "1" or os.geteuid() != 0,
    reason="packaging needs root to install its tools (it runs in CI; gpu_check.sh skips it)")


def run(*args, env=None):
    result = subprocess.run(list(args), capture_output=True, text=True, env=env or os.environ)
    assert result.returncode == 0, f"{' '.join(map(str, args))}\n{result.stdout[-4000:]}\n{result.stderr[-4000:]}"
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    if os.environ.get("TRITON_JIT_PACKAGES_DIR"):  # packages already built by scripts/package.sh
        return pathlib.Path(os.environ["TRITON_JIT_PACKAGES_DIR"])
    out = tmp_path_factory.mktemp("dist")
    run("bash", os.path.join(ROOT, "scripts", "package.sh"),
        env=dict(os.environ, TRITON_JIT_DIST_DIR=str(out), TRITON_JIT_REPRODUCIBLE="1"))
    return out


def torch_prefix():
    import torch.utils
    return torch.utils.cmake_prefix_path


def user_env(libdir, tmp_path):
    """What a user of the installed packages sets: Triton's Python (a venv). Its libpython, which
    the system's loader does not know here (a pyenv build), the library asks that Python for."""
    env = {k: v for k, v in os.environ.items() if k != "TRITON_JIT_LIBPYTHON"}
    return dict(env, TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="", TRITON_JIT_PYTHON=sys.executable,
                LD_LIBRARY_PATH=str(libdir), TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"))


def check_installed_use(prefix, libdir, tmp_path, *cmake_options):
    """A consumer, an operator call and triton_jit_aot, from the installed files only."""
    env = user_env(libdir, tmp_path)
    for name in ("TRITON_JIT_SCRIPTS_DIR", "TRITON_JIT_BRIDGE_LIBRARY"):
        env.pop(name, None)
    build = tmp_path / "consumer"
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix};{torch_prefix()}",
        "-DCONSUMER_WITH_TORCH=ON", "-DCONSUMER_WITH_AOT=ON", *cmake_options, env=env)
    run("cmake", "--build", str(build), env=env)
    assert "for cuda:90" in run(str(build / "consumer"), env=env)
    assert "triton_jit::mm on meta: [8, 4] Half" in run(str(build / "consumer_ops"), env=env)
    offline = dict(env, TRITON_JIT_OFFLINE="1", TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"))
    assert "for cuda:90" in run(str(build / "consumer_bundled"), env=offline)
    # Python users: torch first, then the packaged operator library by path.
    ops = glob.glob(str(libdir / "libtriton_jit_ops.so.0"))[0]
    out = run(sys.executable, "-c", f"""
import torch
torch.ops.load_library({ops!r})
y = torch.ops.triton_jit.add(torch.empty(3, 1, device="meta"), torch.empty(4, device="meta", dtype=torch.half))
print("add on meta:", list(y.shape), y.dtype)""", env=env)
    assert "add on meta: [3, 4] torch.float32" in out
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"target": "cuda:90", "kernels": [{
        "kernel": os.path.join(CONSUMER, "scale.py"), "function": "scale",
        "signatures": [["*fp16:16", "*fp16:16", "fp32", "i32:16", 128]]}]}))
    aot = prefix / "bin" / "triton_jit_aot"
    assert "triton_jit_aot 0.1.0" in run(str(aot), "--version", env=env)
    out = run(str(aot), str(manifest), "-o", str(tmp_path / "bundle"), env=env)
    assert "1 variants of 1 kernels written" in out


def test_packages_are_built_and_lintian_finds_no_error(dist):
    for name in ("libtriton-jit0", "libtriton-jit-dev", "libtriton-jit-torch0", "libtriton-jit-torch-dev",
                 "triton-jit-tools"):
        assert glob.glob(str(dist / f"{name}_*_amd64.deb")), name
    for name in ("triton-jit-[0-9]", "triton-jit-devel-", "triton-jit-tools-", "triton-jit-torch-[0-9]",
                 "triton-jit-torch-devel-"):
        assert glob.glob(str(dist / f"{name}*.x86_64.rpm")), name
    lintian = (dist / "lintian.txt").read_text()
    assert not [line for line in lintian.splitlines() if line.startswith("E:")], lintian


def test_two_builds_from_different_directories_give_the_same_debs(dist):
    lines = (dist / "reproducible.txt").read_text().splitlines()
    assert len(lines) >= 5 and all(line.startswith("identical: ") for line in lines), lines


def test_packages_declare_honest_dependencies(dist):
    deb = glob.glob(str(dist / "libtriton-jit0_*_amd64.deb"))[0]
    depends = run("dpkg-deb", "-f", deb, "Depends")
    assert "libstdc++6" in depends and "libpython3" in depends and "python3" in depends
    torch_deb = glob.glob(str(dist / "libtriton-jit-torch0_*_amd64.deb"))[0]
    depends = run("dpkg-deb", "-f", torch_deb, "Depends")
    assert "libtriton-jit0 (= " in depends and "torch" not in depends.replace("libtriton-jit", "")
    rpm = glob.glob(str(dist / "triton-jit-[0-9]*.x86_64.rpm"))[0]
    requires = run("rpm", "-qp", "--requires", rpm)
    # The Python version the bridge is built for, not a libpython soname: the library asks that
    # Python for its libpython at run time.
    assert f"python(abi) = {sys.version_info[0]}.{sys.version_info[1]}" in requires, requires
    assert "libpython" not in requires and "x86_64-linux-gnu" not in requires
    torch_rpm = glob.glob(str(dist / "triton-jit-torch-[0-9]*.x86_64.rpm"))[0]
    assert "libtorch" not in run("rpm", "-qp", "--requires", torch_rpm)


def test_no_build_path_in_the_binaries(dist, tmp_path):
    for deb in glob.glob(str(dist / "*.deb")):
        if "dbgsym" not in deb:
            run("dpkg", "-x", deb, str(tmp_path))
    for path in glob.glob(str(tmp_path / "usr" / "lib" / TRIPLET / "*.so.*")) + [str(tmp_path / "usr/bin/triton_jit_aot")]:
        data = open(path, "rb").read()
        assert b"/tmp/" not in data and b"/build/" not in data and ROOT.encode() not in data, path


def test_debs_installed_on_merged_usr_serve_a_consumer_an_operator_and_the_aot_tool(dist, tmp_path):
    root = tmp_path / "root"
    (root / "usr" / "lib").mkdir(parents=True)
    (root / "usr" / "bin").mkdir(parents=True)
    os.symlink("usr/lib", root / "lib")  # merged /usr, as Debian 12 and Ubuntu have it
    os.symlink("usr/bin", root / "bin")
    for deb in glob.glob(str(dist / "*.deb")):
        if "dbgsym" not in deb:
            run("dpkg", "-x", deb, str(root))
    # Loaded through /lib, the library must still find /usr/share/triton_jit/scripts.
    check_installed_use(root / "usr", root / "lib" / TRIPLET, tmp_path)
    # A project written as libtriton_jit's users write theirs, against the same install.
    env = user_env(root / "lib" / TRIPLET, tmp_path)
    for name in ("TRITON_JIT_SCRIPTS_DIR", "TRITON_JIT_BRIDGE_LIBRARY"):
        env.pop(name, None)
    out = check_compat_consumer(root / "usr", tmp_path, env)
    assert "compat consumer: kernels compiled; no GPU, launching was skipped" in out


def test_rpms_installed_in_a_lib64_root_serve_the_same(dist, tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    for rpm in glob.glob(str(dist / "*.x86_64.rpm")):
        archive = subprocess.run(["rpm2archive", "-"], stdin=open(rpm, "rb"), capture_output=True, check=True).stdout
        subprocess.run(["tar", "-xz", "-C", str(root)], input=archive, check=True)
    assert (root / "usr" / "lib64" / "libtriton_jit.so.0").exists()
    # Fedora's CMake looks in lib64; Debian's, which runs this test, is told where.
    check_installed_use(root / "usr", root / "usr" / "lib64", tmp_path,
                        f"-DTritonJIT_DIR={root / 'usr' / 'lib64' / 'cmake' / 'TritonJIT'}")


# What RHEL 9 and its rebuilds (Rocky, Alma) ship: glibc 2.34 and GCC 11's libstdc++ and libgcc_s.
RHEL9 = {"GLIBC": (2, 34), "GLIBCXX": (3, 4, 29), "CXXABI": (1, 3, 13), "GCC": (11, 0)}


def over_rhel9(versions):
    """The symbol versions (GLIBC_2.35, ...) among `versions` that RHEL 9 does not provide."""
    over = set()
    for family, number in versions:
        if family in RHEL9 and tuple(int(x) for x in number.split(".")) > RHEL9[family]:
            over.add(f"{family}_{number}")
    return over


def elf_files(root):
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if os.path.islink(path):
                continue
            with open(path, "rb") as f:
                if f.read(4) == b"\x7fELF":
                    yield path


def test_rpms_install_on_rhel9_as_shipped(dist, tmp_path):
    """Every packaged binary's symbol versions and every package's requirements within RHEL 9;
    no libpython soname required, no Provides for the private bridge; stripped binaries with
    build-ids, mode 0755 and rpm's /usr/lib/.build-id links."""
    import re
    version = re.compile(r"\b(GLIBC|GLIBCXX|CXXABI|GCC)_([0-9][0-9.]*[0-9])")
    rpms = glob.glob(str(dist / "*.x86_64.rpm"))
    assert len(rpms) == 5, rpms
    root = tmp_path / "root"
    root.mkdir()
    for rpm in rpms:
        requires = run("rpm", "-qp", "--requires", rpm)
        assert not over_rhel9(version.findall(requires)), (rpm, over_rhel9(version.findall(requires)))
        assert "libpython" not in requires, (rpm, requires)
        provides = run("rpm", "-qp", "--provides", rpm)
        assert "libtriton_jit_python" not in provides, (rpm, provides)
        modes = run("rpm", "-qp", "--qf", "[%{FILEMODES:perms} %{FILENAMES}\n]", rpm).splitlines()
        for line in modes:
            perms, name = line.split(" ", 1)
            if re.search(r"\.so(\.[0-9.]+)?$", name) and perms.startswith("-"):
                assert perms == "-rwxr-xr-x", line
        archive = subprocess.run(["rpm2archive", "-"], stdin=open(rpm, "rb"), capture_output=True, check=True).stdout
        subprocess.run(["tar", "-xz", "-C", str(root)], input=archive, check=True)
    binaries = list(elf_files(root / "usr"))
    assert len(binaries) >= 5, binaries  # the core, the bridge, the adapter, the operators, triton_jit_aot
    core = glob.glob(str(dist / "triton-jit-[0-9]*.x86_64.rpm"))[0]
    links = [name for name in run("rpm", "-qlp", core).splitlines() if name.startswith("/usr/lib/.build-id/")]
    assert links, "no /usr/lib/.build-id links in the core package"
    for path in binaries:
        found = over_rhel9(version.findall(run("objdump", "-T", path)))
        assert not found, (path, found)
        assert "Build ID" in run("readelf", "-n", path), path
        sections = run("readelf", "-S", "-W", path)
        assert ".symtab" not in sections and ".debug_info" not in sections, f"{path} is not stripped"


@pytest.mark.parametrize("python, message", [
    ("/nonexistent/bin/python", "no Python environment at '/nonexistent/bin/python': run 'bash scripts/setup_env.sh'"),
    ("/usr/bin/false", "'/usr/bin/false' has no torch"),
])
def test_packaging_without_its_python_environment_says_what_to_do(python, message):
    result = subprocess.run(["bash", os.path.join(ROOT, "scripts", "package.sh")], capture_output=True, text=True,
                            env=dict(os.environ, TRITON_JIT_PYTHON=python, TRITON_JIT_DIST_DIR="/nonexistent/dist"))
    assert result.returncode == 1 and message in result.stderr, result.stderr
