"""libtriton_jit_ops.so.0 is a loader: it loads the operators built for the torch the process has
(libtriton_jit_ops-torch<minor>.so.0 beside it), and under any other torch refuses with an error
that names both versions, where the dynamic linker would stop on an undefined symbol. The torch
matrix (scripts/test_torch_matrix.sh) also loads a build made against another torch release for
real, through TRITON_JIT_OTHER_TORCH_BUILD."""
import glob
import os
import shutil
import subprocess
import sys
import textwrap

import pytest
import torch

from conftest import BUILD

pytestmark = pytest.mark.gpu  # the whole file is part of the GPU check (conftest.py)

LOADER = os.path.join(BUILD, "lib", "libtriton_jit_ops.so.0")
THIS_TORCH = ".".join(torch.__version__.split("+")[0].split(".")[:2])


def python(code, **env):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=dict(os.environ, **env), timeout=300)


def built_for(build):
    """The torch minor versions a build's operators are for, from their file names."""
    names = glob.glob(os.path.join(build, "lib", "libtriton_jit_ops-torch*.so.0"))
    return sorted(os.path.basename(n)[len("libtriton_jit_ops-torch"):-len(".so.0")] for n in names)


def test_the_build_names_its_operators_after_this_torch():
    assert built_for(BUILD) == [THIS_TORCH]


def test_the_loader_registers_the_operators_for_this_torch():
    out = python(f"""
        import ctypes, torch
        torch.ops.load_library({LOADER!r})
        error = ctypes.CDLL({LOADER!r}).triton_jit_ops_load_error
        error.restype = ctypes.c_char_p
        print("error:", repr(error()))
        y = torch.ops.triton_jit.add(torch.empty(3, 1, device="meta"), torch.empty(4, device="meta"))
        print("add on meta:", list(y.shape))""")
    assert out.returncode == 0, out.stderr
    assert "error: b''" in out.stdout and "add on meta: [3, 4]" in out.stdout


def loader_beside_operators_for(tmp_path, version):
    """The loader in a directory whose only operators are (an empty stand-in) for `version`: the
    loader never opens them, since they are not for the torch it finds."""
    shutil.copy(LOADER, tmp_path / "libtriton_jit_ops.so.0")
    (tmp_path / f"libtriton_jit_ops-torch{version}.so.0").write_bytes(b"")
    return str(tmp_path / "libtriton_jit_ops.so.0")


def test_operators_for_another_torch_are_refused_naming_both_versions(tmp_path):
    loader = loader_beside_operators_for(tmp_path, "1.0")
    out = python(f"""
        import torch
        try:
            torch.ops.load_library({loader!r})
        except OSError as e:
            cause = e
            while cause.__cause__ is not None:
                cause = cause.__cause__
            print("REFUSED", type(cause).__name__, cause)""")
    assert out.returncode == 0, out.stderr
    assert f"REFUSED ImportError libtriton_jit_ops.so.0 in '{tmp_path}' has operators built for torch 1.0" in out.stdout
    assert f"this process has torch {torch.__version__}" in out.stdout
    assert "pip install 'torch==1.0.*'" in out.stdout and f"a triton_jit built for torch {THIS_TORCH}" in out.stdout
    assert "undefined symbol" not in out.stdout + out.stderr


def test_a_refused_load_retried_after_the_operators_are_put_in_place_registers_them(tmp_path):
    """Note [A refused load leaves nothing loaded]: the retry runs the loader's decision again."""
    loader = loader_beside_operators_for(tmp_path, "1.0")
    ours = os.path.join(BUILD, "lib", f"libtriton_jit_ops-torch{THIS_TORCH}.so.0")
    out = python(f"""
        import shutil, torch
        for attempt in ("before", "again"):
            try:
                torch.ops.load_library({loader!r})
                print(attempt, "loaded")
            except OSError as e:
                print(attempt, "refused:", type(e.__cause__.__cause__).__name__)
        shutil.copy({ours!r}, {str(tmp_path / f"libtriton_jit_ops-torch{THIS_TORCH}.so.0")!r})
        torch.ops.load_library({loader!r})
        y = torch.ops.triton_jit.add(torch.empty(3, 1, device="meta"), torch.empty(4, device="meta"))
        print("after:", list(y.shape))""")
    assert out.returncode == 0, out.stderr
    assert "before refused: ImportError" in out.stdout and "again refused: ImportError" in out.stdout, out.stdout
    assert "after: [3, 4]" in out.stdout, out.stdout


def test_a_torch_whose_version_file_says_no_version_is_named_so(tmp_path):
    """A version.py that holds no version is not reported as missing."""
    # A torch directory beside torch's own dependencies (its libraries find them through their
    # RPATH, relative to the directory they are loaded from), holding torch's libraries.
    fake = tmp_path / "site" / "torch"
    (fake / "lib").mkdir(parents=True)
    real_lib = os.path.join(os.path.dirname(torch.__file__), "lib")
    for name in os.listdir(real_lib):
        os.symlink(os.path.join(real_lib, name), fake / "lib" / name)
    site = os.path.dirname(os.path.dirname(torch.__file__))
    for dependency in os.listdir(site):
        if dependency.startswith(("nvidia", "cusparselt", "triton")) and not (tmp_path / "site" / dependency).exists():
            os.symlink(os.path.join(site, dependency), tmp_path / "site" / dependency)
    (fake / "version.py").write_text("this is not a version file\n")
    out = python(f"""
        import ctypes
        ctypes.CDLL({str(fake / "lib" / "libtorch_cpu.so")!r}, mode=ctypes.RTLD_GLOBAL)
        import torch
        try:
            torch.ops.load_library({LOADER!r})
        except OSError as e:
            print("REFUSED", e.__cause__.__cause__)""")
    assert out.returncode == 0, out.stderr
    assert f"has a version.py ('{fake}/version.py') with no __version__" in out.stdout, out.stdout + out.stderr


def test_import_triton_jit_refuses_with_an_import_error():
    """As docs/operators.md says: `import triton_jit` under operators it cannot load is an ImportError."""
    import triton_jit  # noqa: F401  (the build tree's, as other tests import it)
    from triton_jit import _load_operators
    with pytest.raises(ImportError, match="libtriton_jit_ops.so.0"):
        _load_operators(os.path.join(BUILD, "lib", "does_not_exist", "libtriton_jit_ops.so.0"))


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_without_python_the_refusal_goes_to_stderr_and_stays_queryable(tmp_path):
    loader = loader_beside_operators_for(tmp_path, "1.0")
    torch_cpu = os.path.join(os.path.dirname(torch.__file__), "lib", "libtorch_cpu.so")
    program = tmp_path / "load.c"
    program.write_text(textwrap.dedent(f"""
        #include <dlfcn.h>
        #include <stdio.h>
        int main(void) {{
          if (!dlopen("{torch_cpu}", RTLD_NOW | RTLD_GLOBAL)) {{ printf("no torch: %s\\n", dlerror()); return 2; }}
          void* ops = dlopen("{loader}", RTLD_NOW);
          if (!ops) {{ printf("dlopen failed: %s\\n", dlerror()); return 3; }}
          const char* (*error)(void) = (const char* (*)(void))dlsym(ops, "triton_jit_ops_load_error");
          printf("queried: %s\\n", error());
          return 0;
        }}"""))
    subprocess.run(["cc", str(program), "-o", str(tmp_path / "load"), "-ldl"], check=True)
    out = subprocess.run([str(tmp_path / "load")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "has operators built for torch 1.0, and this process has torch " in out.stderr
    assert "queried: libtriton_jit_ops.so.0 in" in out.stdout and "built for torch 1.0" in out.stdout


OTHER = os.environ.get("TRITON_JIT_OTHER_TORCH_BUILD")


@pytest.mark.skipif(not OTHER, reason="TRITON_JIT_OTHER_TORCH_BUILD is not set (scripts/test_torch_matrix.sh sets it)")
def test_a_build_for_another_torch_release_loads_only_under_its_own():
    other_loader = os.path.join(OTHER, "lib", "libtriton_jit_ops.so.0")
    (version,) = built_for(OTHER)
    out = python(f"""
        import torch
        try:
            torch.ops.load_library({other_loader!r})
            print("LOADED", torch.ops.triton_jit.add)
        except OSError as e:
            print("REFUSED", e.__cause__.__cause__)""")
    assert out.returncode == 0, out.stderr
    assert "undefined symbol" not in out.stdout + out.stderr
    if version == THIS_TORCH:
        assert "LOADED triton_jit.add" in out.stdout, out.stdout
    else:
        assert f"has operators built for torch {version}, and this process has torch {torch.__version__}" in out.stdout
