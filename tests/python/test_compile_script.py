"""The compile script on its own: it compiles without a GPU and without importing torch."""
import json
import os
import subprocess
import sys

import pytest

from conftest import KERNELS, ROOT

PROBE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import triton_jit_compile as c
started = time.perf_counter()
kernel = sys.argv[2] + "/parity_kernels.py"
described, sources, values = c.describe(kernel, "", "pointwise", [])
described = json.loads(described)
request = {"signature": ["*fp32", "*fp32", "*fp32", "i32", "constexpr"], "constexprs": {"4": {"int": 256}},
           "attrs": {"0": [["tt.divisibility", 16]], "1": [["tt.divisibility", 16]], "2": [["tt.divisibility", 16]],
                     "3": []},
           "options": {"num_warps": 4, "num_stages": 3}, "target": "cuda:90"}
cubin, metadata, compiled_sources, _ = c.compile(kernel, "", "pointwise", [], json.dumps(request))
print(json.dumps({"torch_imported": "torch" in sys.modules, "elf": cubin[:4] == b"\x7fELF",
                  "name": json.loads(metadata)["name"], "params": len(described["params"]),
                  "sources": [p for p, _ in sources] == [p for p, _ in compiled_sources] == [kernel]}))
"""


def test_compiles_for_an_explicit_target_without_importing_torch(tmp_path):
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path))  # a cold Triton cache: a real compile
    out = subprocess.run([sys.executable, "-c", PROBE, os.path.join(ROOT, "src", "compiler", "python"), KERNELS], env=env,
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result == {"torch_imported": False, "elf": True, "name": "pointwise", "params": 5, "sources": True}


EXTRA = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import triton_jit_compile as c
kernel = sys.argv[2] + "/parity_kernels.py"
request = {"signature": ["*fp32", "*fp32", "*fp32", "i32", "constexpr"], "constexprs": {"4": {"int": 256}},
           "attrs": {"0": [], "1": [], "2": [], "3": []}, "options": {"num_warps": 4, "num_stages": 3},
           "target": "cuda:90", "extra_options": json.loads(sys.argv[3])}
try:
    _, metadata, _, _ = c.compile(kernel, "", "pointwise", [], json.dumps(request))
    print(json.dumps({"ptx_version": json.loads(metadata).get("ptx_version")}))
except ValueError as e:
    print(json.dumps({"error": str(e)}))
"""


def compile_with_extra(tmp_path, extra):
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", EXTRA, os.path.join(ROOT, "src", "compiler", "python"), KERNELS,
                          json.dumps(extra)], env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_compile_options_by_name_reach_triton_and_are_checked_against_its_fields(tmp_path):
    # LaunchConfig::compile_options arrive as "extra_options": ptx_version is one Triton reports back.
    assert compile_with_extra(tmp_path, {"ptx_version": 84}) == {"ptx_version": 84}
    import triton
    error = compile_with_extra(tmp_path, {"no_such_option": 1})["error"]
    assert error.startswith(f"compile option 'no_such_option' (compile_options) is not an option of the installed "
                            f"Triton {triton.__version__}; it has: ") and "ptx_version" in error
    assert compile_with_extra(tmp_path, {"sanitize_overflow": 3})["error"] == (
        f"compile option 'sanitize_overflow' of Triton {triton.__version__} takes a bool, got int 3")
    assert "takes an int, got str '85'" in compile_with_extra(tmp_path, {"ptx_version": "85"})["error"]


AMD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import triton_jit_compile as c
kernel = sys.argv[2] + "/parity_kernels.py"
out = {}
for target in ("hip:gfx942", "hip:gfx90a"):
    request = {"signature": ["*fp32", "*fp32", "*fp32", "i32", "constexpr"], "constexprs": {"4": {"int": 256}},
               "attrs": {"0": [], "1": [], "2": [], "3": []}, "options": {"num_warps": 4, "num_stages": 2},
               "target": target}
    image, metadata, _, _ = c.compile(kernel, "", "pointwise", [], json.dumps(request))
    m = json.loads(metadata)
    out[target] = {"elf_machine": int.from_bytes(image[18:20], "little"), "mach": image[48], "arch": m["arch"],
                   "scratch_params": m["scratch_params"]}
print(json.dumps(out))
"""


def test_amd_targets_compile_to_code_objects_of_their_gfx(tmp_path):
    # The HIP backend's compiles, on any machine: Triton's AMD backend ships in every wheel.
    env = dict(os.environ, TRITON_CACHE_DIR=str(tmp_path))
    out = subprocess.run([sys.executable, "-c", AMD, os.path.join(ROOT, "src", "compiler", "python"), KERNELS], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0 and "ld.lld" in out.stderr:
        # Triton 3.3's AMD backend links code objects with an external ld.lld (ROCm's); from 3.4 on
        # the linker is inside Triton.
        pytest.skip("this Triton links AMD code objects with an external ld.lld, which failed here: "
                    + out.stderr.strip().splitlines()[-1][:200])
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    import triton
    # Global scratch always; profile scratch where the Triton's metadata has it (3.5 on).
    scratch = 2 if tuple(int(p) for p in triton.__version__.split(".")[:2]) >= (3, 5) else 1
    assert result == {
        "hip:gfx942": {"elf_machine": 224, "mach": 0x4c, "arch": "gfx942", "scratch_params": scratch},
        "hip:gfx90a": {"elf_machine": 224, "mach": 0x3f, "arch": "gfx90a", "scratch_params": scratch},
    }


# What a kernel reads that was computed at import: pinned values (decided by recorded texts) are
# not reported and their modules join the sources; the others are, with a fingerprint that is the
# same in every process (here under two hash seeds).
VALUES_MODULES = {
    "helpers.py": "import os\n\n\ndef block():\n    return 64 * 2\n\n\ndef from_env():\n"
                  "    return int(os.environ.get('VALUES_BLOCK', '32'))\n",
    "kernel.py": """import os
import triton
import triton.language as tl
import helpers

LITERAL = tl.constexpr(4)
TUPLE = (1, 2.5, "x")
FROM_PURE_FUNCTION = tl.constexpr(helpers.block())
FROM_COMPREHENSION = [triton.Config({"BLOCK": b}) for b in (16, 32)]
FROM_ENV = tl.constexpr(int(os.environ.get("VALUES_FACTOR", "3")))
FROM_HELPER_READING_ENV = tl.constexpr(helpers.from_env())
NAMES = set(os.environ.get("VALUES_NAMES", "b,a,c").split(","))  # computed, and unordered
if os.environ.get("VALUES_FLAG"):
    CONDITIONAL = tl.constexpr(1)
else:
    CONDITIONAL = tl.constexpr(2)


@triton.jit
def pinned(x_ptr, BLOCK: tl.constexpr = FROM_PURE_FUNCTION):
    tl.store(x_ptr, LITERAL + FROM_PURE_FUNCTION)


@triton.autotune(configs=FROM_COMPREHENSION, key=["n"])
@triton.jit
def tuned(x_ptr, n, BLOCK: tl.constexpr):
    tl.store(x_ptr, BLOCK)


@triton.jit
def computed(x_ptr, SCALE: tl.constexpr = int(os.environ.get("VALUES_SCALE", "1"))):
    if "a" in NAMES:
        tl.store(x_ptr, FROM_ENV + FROM_HELPER_READING_ENV + CONDITIONAL + SCALE)
""",
}

VALUES_PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import triton_jit_sources as s
out = {}
for name in ("pinned", "tuned", "computed"):
    kernel = s.load_kernel(sys.argv[2], "", name, [])
    out[name] = {"values": json.loads(kernel.values), "sources": sorted(p.rsplit("/", 1)[1] for p, _ in kernel.sources)}
print(json.dumps(out))
"""


def test_values_computed_at_import_are_told_from_values_pinned_by_recorded_texts(tmp_path):
    for name, text in VALUES_MODULES.items():
        (tmp_path / name).write_text(text)
    runs = []
    for seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=seed, CUDA_VISIBLE_DEVICES="")
        result = subprocess.run([sys.executable, "-c", VALUES_PROBE, os.path.join(ROOT, "src", "compiler", "python"),
                                 str(tmp_path / "kernel.py")], capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stderr
        runs.append(json.loads(result.stdout.strip().splitlines()[-1]))
    assert runs[0] == runs[1]
    report = runs[0]
    assert report["pinned"] == {"values": [], "sources": ["helpers.py", "kernel.py"]}
    assert report["tuned"]["values"] == []
    names = [name for _, name, _ in report["computed"]["values"]]
    assert names == sorted(["CONDITIONAL", "FROM_ENV", "FROM_HELPER_READING_ENV", "NAMES", "computed(SCALE=)"])
    fingerprints = {name: fp for _, name, fp in report["computed"]["values"]}
    assert fingerprints["FROM_ENV"] == "constexpr(3)" and fingerprints["NAMES"] == "set('a','b','c')"


REBINDINGS = {  # each rebinds a module's global in a form the analysis finds
    "an attribute of an imported module": "import consts\nconsts.FACTOR = 3\n",
    "augmented, through an alias": "import pkg.consts as c\nc.FACTOR += 1\n",
    "annotated": "import consts\nconsts.FACTOR: float = 3.0\n",
    "chained": "import consts\nx = consts.FACTOR = 3\n",
    "parenthesized": "import consts\n(consts).FACTOR = 3\n",
    "after a header's colon": "import consts\nif True: consts.FACTOR = 3\n",
    "in a one-line def": "import consts\ndef f(): consts.FACTOR = 3\n",
    "split by a backslash": "import consts\nconsts \\\n    .FACTOR = 3\n",
    "through sys.modules": "import sys\nsys.modules['consts'].FACTOR = 3\n",
    "through globals()": "globals()['FACTOR'] = 3\n",
    "through setattr": "import consts\nsetattr(consts, 'FACTOR', 3)\n",
}
ORDINARY = {  # what libraries are full of, with no such rebinding: these texts are not parsed
    "annotations with defaults, docstrings, attributes of objects":
        "import torch\n\ndef f(x: torch.Tensor = None, dtype: torch.dtype = torch.float16) -> torch.Tensor:\n"
        '    """Returns:\n        torch.Tensor: the result"""\n    self.x = torch.zeros(3)\n    ctx.eps = 1e-6\n',
    "constexpr parameters and comparisons":
        "import triton.language as tl\n\ndef k(BT: tl.constexpr = 64):\n    if x == tl.float32:\n        pass\n",
    "a dataclass field": "import dataclasses, torch\n\n@dataclasses.dataclass\nclass C:\n    dtype: torch.dtype = torch.float16\n",
}


def test_only_texts_that_may_rebind_a_global_are_parsed_for_rebindings():
    """The walk asks which globals any imported module rebinds; parsing a library of a thousand
    modules for that took half a minute, so a text is parsed only when it may hold one."""
    import ast
    import types
    sys.path.insert(0, os.path.join(ROOT, "src", "compiler", "python"))
    import triton_jit_values as values

    def imports(module):  # the names `import` statements bind, as the dependency walk maps them
        names = {}
        for node in ast.walk(ast.parse(module.text)):
            for alias in node.names if isinstance(node, ast.Import) else ():
                names[alias.asname or alias.name.partition(".")[0]] = (alias.asname and alias.name or
                                                                       alias.name.partition(".")[0], None)
        return names, []

    for case, text in REBINDINGS.items():
        module = types.SimpleNamespace(__name__="m", text=text)
        assert values._rebinds_of(module, f"/nowhere/{case}.py", text.encode(), imports), case
        assert values._may_rebind(text.encode()), case
    for case, text in ORDINARY.items():
        assert not values._may_rebind(text.encode()), case
