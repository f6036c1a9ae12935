"""@triton.jit functions passed as arguments (triton_jit::JitFunctionArg): the specialization
equals Triton's own for the same call (a constexpr, whatever the parameter's declaration), and
variants persist keyed by the function's text: a later process finds them, the same file
elsewhere is the same variant, and an edit of the function or of what it calls compiles again."""
import json
import os
import shutil
import subprocess
import sys

import torch  # noqa: F401  (loads libtorch before the parity module)

import triton_reference as reference
import triton_jit_compile
import triton_jit_parity
from conftest import BUILD, KERNELS

KERNEL_FILE = os.path.join(KERNELS, "jit_function_kernels.py")
ACTIVATIONS = os.path.join(KERNELS, "activations.py")


def test_the_specialization_is_tritons_for_declared_and_plain_parameters():
    x = torch.zeros(64)
    for name in ("apply", "apply_plain"):
        for activation in ("relu", "square", "leaky"):
            fn = triton_jit_compile.load_kernel(os.path.realpath(ACTIVATIONS), "", activation, []).fn
            signature, constexprs, attrs = reference.reference_specialization(KERNEL_FILE, name, [x, x, 4096, fn, 256])
            describe_json = reference.describe(KERNEL_FILE, name)
            request_json, _, _ = triton_jit_parity.encode(describe_json, [
                ("tensor", ("float32", x.data_ptr())), ("tensor", ("float32", x.data_ptr())), ("int32", 4096),
                ("jit_function", (ACTIVATIONS, activation)), ("int32", 256)])
            request = json.loads(request_json)
            params = [p["name"] for p in json.loads(describe_json)["params"]]
            assert dict(zip(params, request["signature"])) == signature, (name, activation)
            assert {(int(i),): [list(a) for a in v] for i, v in request["attrs"].items()} == \
                {k: [list(a) for a in v] for k, v in attrs.items()}, (name, activation)
            assert constexprs[(3,)] is fn
            passed = request["constexprs"]["3"]["jit_function"]
            assert (passed["file"], passed["name"]) == (os.path.realpath(ACTIVATIONS), activation)
            assert triton_jit_compile._untag_value(request["constexprs"]["3"]) is fn, "the compile gets Triton's object"


def test_the_key_follows_the_function_like_tritons_cache_key():
    x = torch.zeros(64)
    describe_json = reference.describe(KERNEL_FILE, "apply")

    def key(activation, file=ACTIVATIONS):
        _, words, _ = triton_jit_parity.encode(describe_json, [
            ("tensor", ("float32", x.data_ptr())), ("tensor", ("float32", x.data_ptr())), ("int32", 4096),
            ("jit_function", (file, activation)), ("int32", 256)])
        return words

    def cache_key(activation):
        return triton_jit_compile.load_kernel(os.path.realpath(ACTIVATIONS), "", activation, []).fn.cache_key

    for a, b in (("relu", "square"), ("relu", "leaky"), ("square", "leaky")):
        assert cache_key(a) != cache_key(b), (a, b)
        assert key(a) != key(b), (a, b)
    assert cache_key("relu") == cache_key("relu")
    assert key("relu") == key("relu")


PROGRAM = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import triton_jit_parity as parity
kernels, activations, activation = sys.argv[2], sys.argv[3], sys.argv[4]
x = ("tensor", ("float32", 1 << 20))
report = parity.variant_report(kernels + "/jit_function_kernels.py", "apply",
                               [x, x, ("int32", 4096), ("jit_function", (activations, activation)), ("int32", 256)],
                               4, 3, False)
print("REPORT " + json.dumps({"compiles": report["compiles"], "signature": report["signature"]}))
"""


def compiles(tmp_path, kernels, activations, activation):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_CACHE_DIR=str(tmp_path / "triton"),
               TRITON_JIT_TARGET="cuda:90", CUDA_VISIBLE_DEVICES="")
    result = subprocess.run([sys.executable, "-c", PROGRAM, os.path.join(BUILD, "lib"), str(kernels),
                             str(activations), activation], env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-4000:]
    line = [l for l in result.stdout.splitlines() if l.startswith("REPORT ")][-1]
    return json.loads(line[len("REPORT "):])["compiles"]


def test_variants_persist_and_follow_edits_of_the_function_and_what_it_calls(tmp_path):
    kernels = tmp_path / "kernels"
    elsewhere = tmp_path / "elsewhere"
    for d in (kernels, elsewhere):
        d.mkdir()
        for f in ("jit_function_kernels.py", "activations.py", "activation_helpers.py"):
            shutil.copy(os.path.join(KERNELS, f), d / f)
    activations = kernels / "activations.py"
    assert compiles(tmp_path, kernels, activations, "leaky") == 1
    assert compiles(tmp_path, kernels, activations, "leaky") == 0, "a later process finds the variant"
    # The same text in another directory is the same function, as for Triton's cache key.
    assert compiles(tmp_path, kernels, elsewhere / "activations.py", "leaky") == 0
    # What leaky calls changed: its stored variants are stale.
    helpers = kernels / "activation_helpers.py"
    helpers.write_text(helpers.read_text().replace("0.125", "0.25"))
    assert compiles(tmp_path, kernels, activations, "leaky") == 1
    # The function's own file changed: another key.
    activations.write_text(activations.read_text().replace("return x * x", "return x * x * x"))
    assert compiles(tmp_path, kernels, activations, "square") == 1
    assert compiles(tmp_path, kernels, activations, "square") == 0
