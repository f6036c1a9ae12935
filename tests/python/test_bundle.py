"""Ahead of time: triton_jit_aot compiles a manifest into a bundle; a program that embeds the
bundle (triton_jit_embed_bundle), or names its directory, runs offline with no Python, no Triton
and no kernel source. The tool validates everything and never exits 0 without writing."""
import json
import os
import shutil
import stat
import subprocess

import pytest

import cache_entries
from conftest import BUILD, KERNELS, ROOT

# These tests run CMake builds: one pytest-xdist worker takes them all, so that two builds never
# share CI's two cores (scripts/test.sh).
pytestmark = pytest.mark.xdist_group("build")

AOT = os.path.join(BUILD, "bin", "triton_jit_aot")
PROBE = os.path.join(BUILD, "bin", "cache_probe")
CONSUMER = os.path.join(ROOT, "tests", "consumer")
ENV = dict(os.environ, CUDA_VISIBLE_DEVICES="")


def run(*args, env=None, check=True):
    result = subprocess.run(list(args), capture_output=True, text=True, env=env or ENV, timeout=900)
    if check:
        assert result.returncode == 0, f"{' '.join(args)}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


def aot(tmp_path, manifest, out="bundle", check=False):
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps(manifest) if not isinstance(manifest, str) else manifest)
    env = dict(ENV, TRITON_JIT_CACHE_DIR=str(tmp_path / "aot-cache"))
    return run(AOT, str(path), "-o", str(tmp_path / out) if isinstance(out, str) else str(out), env=env, check=check)


SCALE_MANIFEST = {"target": "cuda:90", "kernels": [{
    "kernel": "scale.py", "function": "scale", "options": {"num_warps": 4, "num_stages": 3},
    "signatures": [["*fp32:16", "*fp32:16", "fp32", "i32:16"], ["*fp16", "*fp16", "fp32", "i32"]]}]}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    work = tmp_path_factory.mktemp("aot")
    shutil.copy(os.path.join(CONSUMER, "scale.py"), work / "scale.py")
    result = aot(work, SCALE_MANIFEST, check=True)
    assert "[2/2] scale" in result.stderr and "2 variants of 1 kernels written to" in result.stderr
    assert "\r" not in result.stderr  # not a terminal: plain lines
    return work / "bundle"


def test_bundle_directory_serves_offline_without_python(bundle, tmp_path):
    env = dict(ENV, TRITON_JIT_BUNDLE_PATH=str(bundle), TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"),
               TRITON_JIT_TARGET="cuda:90", TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    out = json.loads(run(PROBE, os.path.join(CONSUMER, "scale.py"), "scale", env=env).stdout)
    assert out["compiles"] == 0 and not out["libpython"]


def test_program_with_an_embedded_bundle_needs_no_python_or_source(bundle, tmp_path):
    prefix = tmp_path / "prefix"
    run("cmake", "--install", BUILD, "--prefix", str(prefix))
    build = tmp_path / "build"
    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy)
    run("cmake", "-S", CONSUMER, "-B", str(build), "-G", "Ninja", f"-DCMAKE_PREFIX_PATH={prefix}",
        f"-DCONSUMER_BUNDLE={copy}")
    run("cmake", "--build", str(build))
    shutil.rmtree(copy)  # only the embedded copy is left
    env = dict(ENV, TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"), TRITON_JIT_TARGET="cuda:90",
               TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent", TRITON_JIT_LIBPYTHON="/nonexistent")
    # and the kernel's source is not deployed either: the consumer names a path where nothing is
    out = run(str(build / "consumer"), str(tmp_path / "not-deployed" / "scale.py"), env=env).stdout
    assert "variant: scale x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256 for cuda:90" in out
    assert not cache_entries.files(tmp_path / "empty", "")  # nothing was compiled or written


def test_a_bundle_serves_a_kernel_whose_file_is_gone(bundle, tmp_path):
    # The kernel's .py is deployed nowhere: the bundle (a directory, then embedded) still serves
    # the path the program names, offline and without Python.
    gone = tmp_path / "deployed" / "scale.py"
    env = dict(ENV, TRITON_JIT_BUNDLE_PATH=str(bundle), TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"),
               TRITON_JIT_TARGET="cuda:90", TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    out = json.loads(run(PROBE, str(gone), "scale", env=env).stdout)
    assert out["compiles"] == 0 and not out["libpython"]
    missing = run(PROBE, str(gone), "scale", env=dict(env, TRITON_JIT_BUNDLE_PATH=str(tmp_path / "none")), check=False)
    assert missing.returncode != 0 and "kernel file" in missing.stderr and "not found" in missing.stderr


def test_a_bundle_built_from_another_source_is_not_used_while_online(bundle, tmp_path):
    kernel = tmp_path / "scale.py"
    kernel.write_text(open(os.path.join(CONSUMER, "scale.py")).read().replace("* factor", "* factor + 1.0"))
    env = dict(ENV, TRITON_JIT_BUNDLE_PATH=str(bundle), TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"),
               TRITON_JIT_TARGET="cuda:90")
    result = run(PROBE, str(kernel), "scale", env=env)
    assert json.loads(result.stdout)["compiles"] == 1
    assert "were built from another version of" in result.stderr and "compiling from the file instead" in result.stderr
    offline = run(PROBE, str(kernel), "scale", env=dict(env, TRITON_JIT_OFFLINE="1",
                                                         TRITON_JIT_CACHE_DIR=str(tmp_path / "empty")))
    assert json.loads(offline.stdout)["compiles"] == 0
    assert "using them anyway (offline mode)" in offline.stderr


# Defect 5: constexpr strings must stay valid however many the manifest holds.
def test_every_constexpr_string_of_a_manifest_reaches_its_variant(tmp_path):
    modes = ["fast", "slow", "exact", "approximate", "x" * 40]
    manifest = {"target": "cuda:90", "kernels": [{
        "kernel": os.path.join(KERNELS, "parity_kernels.py"), "function": "annotated",
        "signatures": [["*fp32:16", "*fp32:16", "i64:16", "i32:16", "fp32", "fp32", "u1", 128, mode]
                       for mode in modes]}]}
    result = aot(tmp_path, manifest)
    assert result.returncode == 0, result.stderr
    assert len(cache_entries.files(tmp_path / "bundle", ".variant")) == len(modes)
    env = dict(ENV, TRITON_JIT_BUNDLE_PATH=str(tmp_path / "bundle"), TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"),
               TRITON_JIT_TARGET="cuda:90", TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    for mode in modes:
        out = run(PROBE, os.path.join(KERNELS, "parity_kernels.py"), "annotated", "4", "ptr", "ptr", "i:4096",
                  "i:16", "f:1.5", "f:1.5", "i:1", "i:128", f"s:{mode}", env=env).stdout
        assert json.loads(out)["compiles"] == 0 and f"MODE='{mode}'" in json.loads(out)["signature"]


def test_tuple_arguments_of_a_manifest_reach_their_variant(tmp_path):
    """A kernel that indexes tuple parameters (and takes a constexpr tuple): its signature lists
    each tuple as a list, and a program passing the same tuples is served from the bundle."""
    manifest = {"target": "cuda:90", "kernels": [{
        "kernel": os.path.join(KERNELS, "parity_kernels.py"), "function": "tuples",
        "signatures": [[["*fp32:16", "*fp32:16"], ["i32:16", "i32"], "fp32", [1, [2, 3]], 128],
                       [["*fp32:16", "*fp32"], ["i32", "i32"], "fp32", [1, [2, 3]], 128]]}]}
    result = aot(tmp_path, manifest)
    assert result.returncode == 0, result.stderr
    assert len(cache_entries.files(tmp_path / "bundle", ".variant")) == 2
    env = dict(ENV, TRITON_JIT_BUNDLE_PATH=str(tmp_path / "bundle"), TRITON_JIT_CACHE_DIR=str(tmp_path / "empty"),
               TRITON_JIT_TARGET="cuda:90", TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    out = json.loads(run(PROBE, os.path.join(KERNELS, "parity_kernels.py"), "tuples", "4", "tuple:2", "ptr", "ptr",
                         "tuple:2", "i:4096", "i:3", "f:1.5", "tuple:2", "i:1", "tuple:2", "i:2", "i:3", "i:128",
                         env=env).stdout)
    assert out["compiles"] == 0, out
    assert out["signature"].startswith("ptrs: (*fp32:16, *fp32:16), sizes: (i32:16, i32), scale: fp32"), out
    # A call the manifest did not list is refused offline, not compiled.
    missing = run(PROBE, os.path.join(KERNELS, "parity_kernels.py"), "tuples", "4", "tuple:2", "ptr", "ptr",
                  "tuple:2", "i:4096", "i:4096", "f:1.5", "tuple:2", "i:1", "tuple:2", "i:2", "i:3", "i:128",
                  env=env, check=False)
    assert missing.returncode == 1 and "offline mode" in missing.stderr, missing.stderr


def test_a_huge_string_argument_is_handled_not_a_crash(tmp_path):
    manifest = {"kernels": [{"kernel": os.path.join(KERNELS, "parity_kernels.py"), "function": "annotated",
                             "signatures": [["*fp32:16", "*fp32:16", "i64", "i32", "fp32", "fp32", "u1", 128,
                                             "m" * 200000]]}]}
    result = aot(tmp_path, manifest)
    assert result.returncode in (0, 1), result.returncode  # not a signal
    if result.returncode == 1:
        assert "manifest.json: kernels[0].signatures[0] (annotated)" in result.stderr


@pytest.mark.parametrize("where", ["file", "world_writable", "proc"])
def test_an_output_that_cannot_be_written_is_an_error(tmp_path, where):
    if where == "file":
        out = tmp_path / "a_file"
        out.write_text("x")
        expected = "cannot be opened as a directory (Not a directory)"
    elif where == "world_writable":
        out = tmp_path / "open"
        out.mkdir()
        os.chmod(out, 0o777)
        expected = "is writable by everyone; refusing to use it"
    else:
        out = "/proc/triton_jit_bundle"
        expected = "could not be created"
    shutil.copy(os.path.join(CONSUMER, "scale.py"), tmp_path / "scale.py")
    result = aot(tmp_path, SCALE_MANIFEST, out=out)
    assert result.returncode == 1
    assert "cannot record a bundle into" in result.stderr and expected in result.stderr, result.stderr


@pytest.mark.parametrize("options, message", [
    ({"num_warps": 2**32 + 8}, "kernels[0].options: 'num_warps' is 4294967304; expected 1, 2, 4, 8, 16 or 32"),
    ({"maxnreg": 2**40}, "kernels[0].options: 'maxnreg' is 1099511627776; expected 0 (no limit) or 16 to 255"),
    ({"num_ctas": 3}, "kernels[0].options: 'num_ctas' is 3; expected 1, 2, 4, 8 or 16"),
    ({"num_stages": 2**63}, "kernels[0].options: 'num_stages' is 9223372036854775808; expected 1 to 64"),
    ({"launch_pdl": 1}, "kernels[0].options: 'launch_pdl' must be true or false"),
    ({"num_warp": 4}, "kernels[0].options: unknown key 'num_warp' (expected one of: num_warps, num_stages"),
])
def test_option_values_are_validated_not_narrowed(tmp_path, options, message):
    manifest = dict(SCALE_MANIFEST, kernels=[dict(SCALE_MANIFEST["kernels"][0], options=options)])
    result = aot(tmp_path, manifest)
    assert result.returncode == 1
    assert str(tmp_path / "manifest.json") + ": " + message in result.stderr, result.stderr


@pytest.mark.parametrize("manifest, message", [
    ("{not json", "manifest: not valid JSON"),
    ({"kernels": [{"kernel": "k.py", "signatures": [[]]}]}, "kernels[0]: 'function' is missing"),
    ({"kernels": [{"kernel": "k.py", "function": "f", "signatures": [["*fp33"]]}]},
     "kernels[0].signatures[0][0]: '*fp33' is not a pointer type"),
    ({"kernels": [{"kernel": "k.py", "function": "f", "signatures": [["i17"]]}]},
     "kernels[0].signatures[0][0]: 'i17' is not a scalar type a C++ call passes"),
    ({"kernels": [{"kernel": "k.py", "function": "f", "signatures": [[json.loads("[" * 17 + '"i32"' + "]" * 17)]]}]},
     "kernels[0].signatures[0][0]" + "[0]" * 16 + ": tuples nest at most 16 deep"),
    ({"kernels": [{"kernel": "k.py", "function": "f", "signatures": [["*fp32", []]]}]},
     "kernels[0].signatures[0][1]: an empty list; a tuple argument holds at least one element"),
    ({"kernels": [{"kernel": "k.py", "function": "f", "signatures": [[["i32"] * 200, ["i32"] * 100]]}]},
     "kernels[0].signatures[0][1][54]: a call holds at most 256 values"),
    ({"target": "cuda:9x", "kernels": []}, "manifest: 'target' is 'cuda:9x'"),
    ({"kernels": [], "extra": 1}, "manifest: unknown key 'extra'"),
    ({"kernels": [{"kernel": "k.py\u0000x", "function": "f", "signatures": [[]]}]},
     "kernels[0]: 'kernel' contains a NUL byte"),
])
def test_manifest_errors_name_the_file_the_entry_and_the_key(tmp_path, manifest, message):
    result = aot(tmp_path, manifest)
    assert result.returncode == 1
    assert str(tmp_path / "manifest.json") + ": " + message in result.stderr, result.stderr
    assert not (tmp_path / "bundle").exists()


def test_help_and_version():
    assert "usage: triton_jit_aot" in run(AOT, "--help").stdout
    assert run(AOT, "--version").stdout.startswith("triton_jit_aot 0.")
    assert run(AOT, check=False).returncode == 2


@pytest.mark.parametrize("args, message", [
    (["m.json", "-o", "out", "--bogus"], "unknown option '--bogus'"),
    (["--bogus"], "unknown option '--bogus'"),
    (["m.json", "-o"], "'-o' needs the bundle directory after it"),
    (["m.json"], "no bundle directory given"),
    (["-o", "out"], "no manifest given"),
    (["a.json", "b.json", "-o", "out"], "unexpected argument 'b.json'"),
])
def test_a_wrong_command_line_names_what_is_wrong(args, message):
    result = run(AOT, *args, check=False)
    assert result.returncode == 2
    assert f"triton_jit_aot: {message}" in result.stderr and "usage: triton_jit_aot" in result.stderr


def test_a_failed_run_leaves_no_bundle_directory_behind(tmp_path):
    # The first kernel compiles (and is recorded), the second cannot be imported: the directory
    # this run created goes, and one that was there before stays.
    manifest = {"target": "cuda:90", "kernels": [
        {"kernel": os.path.join(KERNELS, "parity_kernels.py"), "function": "pointwise",
         "signatures": [["*fp32:16", "*fp32:16", "*fp32:16", "i32:16", 256]]},
        {"kernel": os.path.join(KERNELS, "broken_syntax.py"), "function": "k", "signatures": [[]]}]}
    result = aot(tmp_path, manifest)
    assert result.returncode == 1 and "broken_syntax.py" in result.stderr, result.stderr
    assert not (tmp_path / "bundle").exists()
    (tmp_path / "kept").mkdir()
    assert aot(tmp_path, manifest, out="kept").returncode == 1
    assert (tmp_path / "kept").is_dir()


def test_compile_options_of_a_manifest_make_variants_of_their_own_and_are_checked(tmp_path):
    def manifest(extra):
        options = {"num_warps": 4}
        if extra is not None:
            options["compile_options"] = extra
        return {"target": "cuda:90", "kernels": [{
            "kernel": os.path.join(KERNELS, "parity_kernels.py"), "function": "pointwise", "options": options,
            "signatures": [["*fp32:16", "*fp32:16", "*fp32:16", "i32:16", 256]]}]}
    plain = aot(tmp_path, manifest(None), out="plain")
    assert plain.returncode == 0, plain.stderr
    with_options = aot(tmp_path, manifest({"ptx_version": 84, "sanitize_overflow": False}), out="options")
    assert with_options.returncode == 0, with_options.stderr
    [a] = cache_entries.files(tmp_path / "plain", ".variant")
    [b] = cache_entries.files(tmp_path / "options", ".variant")
    assert os.path.basename(a) != os.path.basename(b)  # another variant key
    wrong = aot(tmp_path, manifest({"sanitize_overflow": "no"}), out="wrong")
    assert wrong.returncode == 1 and "compile option 'sanitize_overflow' of Triton" in wrong.stderr
    reserved = aot(tmp_path, manifest({"num_warps": 8}), out="reserved")
    assert reserved.returncode == 1
    assert "kernels[0].options.compile_options: CompileOptions::set: 'num_warps' is a field of LaunchConfig" in \
        reserved.stderr
    nested = aot(tmp_path, manifest({"extern_libs": {"libdevice": "x"}}), out="nested")
    assert nested.returncode == 1 and "'extern_libs' must be a boolean, an integer" in nested.stderr
