"""The persistent cache, in fresh processes (tests/cpu/cache_probe.cpp): a warm process needs no
Python; the cache never serves another kernel's code or a stale variant; damaged, foreign or
strange entries are refused and rebuilt."""
import json
import os
import shutil
import stat
import subprocess
import threading

import pytest

import cache_entries
from conftest import BUILD, ROOT

PROBE = os.path.join(BUILD, "bin", "cache_probe")
DEMO = os.path.join(BUILD, "bin", "triton_jit_demo")
KERNELS = os.path.join(ROOT, "tests", "kernels")

SCALE = """import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr = 256):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor{extra}, mask=mask)
"""


def probe(cache, kernel, function="scale", *extra, env=None, check=True, umask=None):
    environment = dict(os.environ, TRITON_JIT_CACHE_DIR=str(cache), TRITON_JIT_TARGET="cuda:90",
                       CUDA_VISIBLE_DEVICES="", TRITON_JIT_LOG_LEVEL="info")
    environment.update(env or {})
    result = subprocess.run([PROBE, str(kernel), function, *extra], capture_output=True, text=True,
                            env=environment, timeout=600, preexec_fn=(lambda: os.umask(umask)) if umask is not None else None)
    if check:
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1]), result.stderr
    return result


def compiles(cache, kernel, function="scale", *extra, **kwargs):
    return probe(cache, kernel, function, *extra, **kwargs)[0]["compiles"]


@pytest.fixture
def kernel(tmp_path):
    path = tmp_path / "src" / "scale.py"
    path.parent.mkdir()
    path.write_text(SCALE.format(extra=""))
    return path


def entries(cache, suffix):
    return cache_entries.files(cache, suffix)


# ---- warm processes and offline mode --------------------------------------------------------------

def test_warm_process_loads_without_python(tmp_path, kernel):
    cache = tmp_path / "cache"
    cold, _ = probe(cache, kernel)
    assert cold["compiles"] == 1 and cold["libpython"]
    warm, _ = probe(cache, kernel, env={"PYTHONHOME": "/nonexistent", "TRITON_JIT_OFFLINE": "1"})
    assert warm == dict(cold, compiles=0, libpython=False, bridge=False)
    assert stat.S_IMODE(os.stat(cache).st_mode) == 0o700


def _triton_version():
    import triton
    return tuple(int(v) for v in triton.__version__.split(".")[:2])


# The demo launches the operator library, whose kernels use language features of Triton 3.4
# (constexpr dtype methods); the test matrix runs this file against Triton 3.3 as well.
@pytest.mark.skipif(_triton_version() < (3, 4), reason="the operator library's kernels need Triton 3.4 or newer")
def test_demo_runs_offline_from_a_warm_cache_and_fails_clearly_from_an_empty_one(tmp_path):
    env = dict(os.environ, TRITON_JIT_CACHE_DIR=str(tmp_path / "cache"), TRITON_JIT_TARGET="cuda:90",
               CUDA_VISIBLE_DEVICES="")
    subprocess.run([DEMO], env=env, check=True, capture_output=True, timeout=900)
    offline = dict(env, TRITON_JIT_OFFLINE="1", PYTHONHOME="/nonexistent")
    warm = subprocess.run([DEMO], env=offline, capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert "Launching skipped" in warm.stdout and "libpython loaded: no" in warm.stdout
    empty = subprocess.run([DEMO], env=dict(offline, TRITON_JIT_CACHE_DIR=str(tmp_path / "empty")),
                           capture_output=True, text=True, timeout=300)
    assert empty.returncode != 0
    assert "binary_kernel: its static signature is neither in the cache" in empty.stderr
    assert "compiling is disabled (offline mode)" in empty.stderr and "triton_jit_aot" in empty.stderr


def test_offline_miss_names_kernel_signature_and_remedy(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    result = probe(cache, kernel, "scale", "8", env={"TRITON_JIT_OFFLINE": "1"}, check=False)
    assert result.returncode == 1
    assert ("scale: the variant (x_ptr: *fp32:16, out_ptr: *fp32:16, factor: fp32, n: i32:16, BLOCK=256) for "
            "cuda:90 with num_warps=8") in result.stderr
    assert "Precompile it" in result.stderr


# ---- what invalidates a variant ---------------------------------------------------------------------

def test_changed_kernel_source_is_a_miss(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    kernel.write_text(SCALE.format(extra=" * 1.0"))
    assert compiles(cache, kernel) == 1


GENERATED = '''import linecache

import triton
import triton.language as tl

# A kernel made from a string, as code generators write them: its code's file is "<generated>",
# whose text is this module's.
SOURCE = """
@triton.jit
def scale(x_ptr, out_ptr, factor, n, BLOCK: tl.constexpr = 256):
    offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    tl.store(out_ptr + offsets, tl.load(x_ptr + offsets, mask=mask) * factor * MULTIPLIER, mask=mask)
"""
linecache.cache["<generated>"] = (len(SOURCE), None, SOURCE.splitlines(True), "<generated>")
exec(compile(SOURCE, "<generated>", "exec"), globals())
'''


def test_edited_string_of_a_kernel_made_by_exec_is_a_miss(tmp_path):
    kernel = tmp_path / "generated.py"
    kernel.write_text(GENERATED.replace("MULTIPLIER", "2"))
    cache = tmp_path / "cache"
    assert compiles(cache, kernel) == 1
    assert compiles(cache, kernel) == 0
    kernel.write_text(GENERATED.replace("MULTIPLIER", "3"))
    assert compiles(cache, kernel) == 1


def test_changed_dependency_of_a_called_jit_function_is_a_miss(tmp_path):
    package = tmp_path / "pkg"
    shutil.copytree(os.path.join(KERNELS, "pkg"), package)
    cache = tmp_path / "cache"
    spec = str(package / "scale.py")
    assert compiles(cache, spec, "scale_kernel") == 1
    assert compiles(cache, spec, "scale_kernel") == 0
    helpers = package / "helpers.py"
    helpers.write_text(helpers.read_text().replace("x * 2", "x * 3"))
    assert compiles(cache, spec, "scale_kernel") == 1


def test_option_target_and_triton_environment_changes_are_misses(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    assert compiles(cache, kernel, "scale", "8") == 1
    assert compiles(cache, kernel, env={"TRITON_JIT_TARGET": "cuda:80"}) == 1
    assert compiles(cache, kernel, env={"TRITON_DEFAULT_FP_FUSION": "0"}) == 1
    # knobs upstream found missing from Triton's own key (triton#11879, #11832), and the unprefixed
    # ones that change the binary
    assert compiles(cache, kernel, env={"TRITON_DISABLE_LINE_INFO": "1"}) == 1
    assert compiles(cache, kernel, env={"PTXAS_OPTIONS": "--warn-on-spills"}) == 1
    assert compiles(cache, kernel, env={"USE_IR_LOC": "ttir"}) == 1
    assert compiles(cache, kernel) == 0


def test_changed_triton_installation_is_a_miss(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    for path in entries(cache, ".variant"):
        kind, header, payload = cache_entries.read(path)
        header["triton"]["fingerprint"] = "0" * 32  # as if another Triton had compiled it
        cache_entries.write(path, kind, header, payload)
    _, log = probe(cache, kernel)
    assert "the Triton installation changed" in log
    assert compiles(cache, kernel) == 0


# Defect 2: dependencies the old scan missed. Each is edited after a warm run; the next process
# must compile again.
DEPENDENCIES = {
    "helper module named like triton": {
        "triton_helpers.py": "import triton\n\n\n@triton.jit\ndef twice(x):\n    return x * 2\n",
        "kernel.py": "import triton\nimport triton.language as tl\nfrom triton_helpers import twice\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, twice(tl.load(x_ptr + o, mask=o < n)), mask=o < n)\n",
        "edit": ("triton_helpers.py", "x * 2", "x * 3"),
    },
    "constexpr global imported from another module": {
        "consts.py": "import triton.language as tl\n\nFACTOR = tl.constexpr(2.0)\n",
        "kernel.py": "import triton\nimport triton.language as tl\nfrom consts import FACTOR\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "edit": ("consts.py", "2.0", "3.0"),
    },
    "constexpr default from another module": {
        "defaults.py": "BLOCK = 128\n",
        "kernel.py": "import triton\nimport triton.language as tl\nimport defaults\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr = defaults.BLOCK):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)\n",
        "edit": ("defaults.py", "128", "256"),
        "args": ["ptr", "ptr", "i:1000"],
    },
    "JIT helper called through nested modules": {
        "lib/__init__.py": "from . import sub\n",
        "lib/sub.py": "import triton\n\n\n@triton.jit\ndef twice(x):\n    return x * 2\n",
        "kernel.py": "import triton\nimport triton.language as tl\nimport lib\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, lib.sub.twice(tl.load(x_ptr + o, mask=o < n)), mask=o < n)\n",
        "edit": ("lib/sub.py", "x * 2", "x * 3"),
    },
}


@pytest.mark.parametrize("case", sorted(DEPENDENCIES))
def test_edited_dependency_is_a_miss(tmp_path, case):
    spec = DEPENDENCIES[case]
    src = tmp_path / "src"
    for name, text in spec.items():
        if name.endswith(".py"):
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            (src / name).write_text(text)
    cache = tmp_path / "cache"
    args = ["4"] + spec.get("args", ["ptr", "ptr", "i:1000", "i:128"])
    kernel = str(src / "kernel.py")
    assert compiles(cache, kernel, "k", *args) == 1
    assert compiles(cache, kernel, "k", *args) == 0
    edited, old, new = spec["edit"]
    (src / edited).write_text((src / edited).read_text().replace(old, new))
    assert compiles(cache, kernel, "k", *args) == 1
    assert compiles(cache, kernel, "k", *args) == 0


# Values the kernel reads that its files' texts do not decide (computed at import): a later
# process imports the module and compares them before it trusts an entry, as Triton's runtime
# checks the globals a kernel used. Each case: a first process compiles, a second with nothing
# changed compiles nothing, a third after the change compiles again, a fourth compiles nothing.
COMPUTED = {
    "a value read from an environment variable": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n"
                     "FACTOR = tl.constexpr(float(os.environ.get('KERNEL_FACTOR', '2')))\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a value imported from a module that reads a JSON file": {
        "settings.json": '{"factor": 2.0}',
        "config.py": "import json\nimport pathlib\n\n"
                     "FACTOR = json.loads((pathlib.Path(__file__).parent / 'settings.json').read_text())['factor']\n",
        "kernel.py": "import triton\nimport triton.language as tl\nfrom config import FACTOR as F\n\n"
                     "FACTOR = tl.constexpr(F)\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"edit": ("settings.json", "2.0", "3.0")},
    },
    "a value computed by a function of another module": {
        "helpers.py": "def block():\n    return 128\n",
        "kernel.py": "import triton\nimport triton.language as tl\nimport helpers\n\n"
                     "BLOCK_DEFAULT = helpers.block()\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr = BLOCK_DEFAULT):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)\n",
        "change": {"edit": ("helpers.py", "128", "256")},
        "args": ["ptr", "ptr", "i:1000"],
        "needs_python": False,  # pinned by helpers.py's text, which is recorded
    },
    "autotune configs built from a JSON file by another module": {
        "tuning.json": '{"blocks": [64]}',
        "configs.py": "import json\nimport pathlib\n\nimport triton\n\n\ndef configs():\n"
                      "    text = (pathlib.Path(__file__).parent / 'tuning.json').read_text()\n"
                      "    return [triton.Config({'BLOCK': b}) for b in json.loads(text)['blocks']]\n",
        "kernel.py": "import triton\nimport triton.language as tl\nfrom configs import configs\n\n\n"
                     "@triton.autotune(configs=configs(), key=['n'])\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)\n",
        "change": {"edit": ("tuning.json", "64", "128")},
        "args": ["ptr", "ptr", "i:1000"],
    },
    # Values that look pinned by a text and are not (Note [Globals changed at run time]).
    "a global another module patches at import": {
        "consts.py": "import triton.language as tl\n\nFACTOR = tl.constexpr(2.0)\n",
        "patch.py": "import os\nimport triton.language as tl\nimport consts\n\n"
                    "consts.FACTOR = tl.constexpr(float(os.environ.get('KERNEL_FACTOR', '2')))\n",
        "kernel.py": "import triton\nimport triton.language as tl\nimport patch  # noqa: F401\nfrom consts import FACTOR\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a global rebound through globals()": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\nFACTOR = tl.constexpr(2.0)\n"
                     "globals()['FACTOR'] = tl.constexpr(float(os.environ.get('KERNEL_FACTOR', '2')))\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a global rebound through setattr on its module": {
        "kernel.py": "import os\nimport sys\nimport triton\nimport triton.language as tl\n\nFACTOR = tl.constexpr(2.0)\n"
                     "setattr(sys.modules[__name__], 'FACTOR', tl.constexpr(float(os.environ.get('KERNEL_FACTOR', '2'))))\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a class attribute read from the environment": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n\nclass Settings:\n"
                     "    FACTOR = float(os.environ.get('KERNEL_FACTOR', '2'))\n\n\nFACTOR = tl.constexpr(Settings.FACTOR)\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a method of a constructed class reads the environment": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n\nclass Settings:\n"
                     "    def factor(self):\n        return float(os.environ.get('KERNEL_FACTOR', '2'))\n\n\n"
                     "FACTOR = tl.constexpr(Settings().factor())\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a dataclass built by a classmethod from the environment": {
        "kernel.py": "import dataclasses\nimport os\nimport triton\nimport triton.language as tl\n\n\n"
                     "@dataclasses.dataclass\nclass Settings:\n    factor: float\n\n    @classmethod\n"
                     "    def from_env(cls):\n        return cls(float(os.environ.get('KERNEL_FACTOR', '2')))\n\n\n"
                     "FACTOR = tl.constexpr(Settings.from_env().factor)\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "functools.partial of a function that reads the environment": {
        "kernel.py": "import functools\nimport os\nimport triton\nimport triton.language as tl\n\n\n"
                     "def read(name, default):\n    return float(os.environ.get(name, default))\n\n\n"
                     "factor = functools.partial(read, 'KERNEL_FACTOR', '2')\nFACTOR = tl.constexpr(factor())\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "map of a function that reads the environment": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n\n"
                     "def read(name):\n    return float(os.environ.get(name, '2'))\n\n\n"
                     "FACTOR = tl.constexpr(list(map(read, ['KERNEL_FACTOR']))[0])\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * FACTOR, mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a JIT helper chosen by an environment variable": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n\n"
                     "@triton.jit\ndef twice(x):\n    return x * 2\n\n\n@triton.jit\ndef thrice(x):\n    return x * 3\n\n\n"
                     "scaled = thrice if os.environ.get('KERNEL_FACTOR') == '3' else twice\n\n\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, scaled(tl.load(x_ptr + o, mask=o < n)), mask=o < n)\n",
        "change": {"env": {"KERNEL_FACTOR": "3"}},
    },
    "a prune function that reads the environment": {
        "kernel.py": "import os\nimport triton\nimport triton.language as tl\n\n\n"
                     "def keep(configs, named_args, **kwargs):\n"
                     "    block = int(os.environ.get('KERNEL_BLOCK', '64'))\n"
                     "    return [c for c in configs if c.kwargs['BLOCK'] == block]\n\n\n"
                     "@triton.autotune(configs=[triton.Config({'BLOCK': 64}), triton.Config({'BLOCK': 128})], key=['n'],\n"
                     "                 prune_configs_by={'early_config_prune': keep})\n"
                     "@triton.jit\ndef k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
                     "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
                     "    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n), mask=o < n)\n",
        "change": {"env": {"KERNEL_BLOCK": "128"}},
        "args": ["ptr", "ptr", "i:1000"],
    },
}


def write_files(directory, spec):
    for name, text in spec.items():
        if "." in name:
            (directory / name).parent.mkdir(parents=True, exist_ok=True)
            (directory / name).write_text(text)


@pytest.mark.parametrize("case", sorted(COMPUTED))
def test_a_changed_value_computed_at_import_is_a_miss(tmp_path, case):
    spec = COMPUTED[case]
    src = tmp_path / "src"
    write_files(src, spec)
    cache = tmp_path / "cache"
    args = ["4"] + spec.get("args", ["ptr", "ptr", "i:1000", "i:128"])
    kernel = str(src / "kernel.py")
    env = {}
    assert compiles(cache, kernel, "k", *args, env=env) == 1
    warm, _ = probe(cache, kernel, "k", *args, env=env)
    assert warm["compiles"] == 0 and warm["libpython"] == spec.get("needs_python", True)
    change = spec["change"]
    env = change.get("env", {})
    if "edit" in change:
        edited, old, new = change["edit"]
        (src / edited).write_text((src / edited).read_text().replace(old, new))
    assert compiles(cache, kernel, "k", *args, env=env) == 1
    assert compiles(cache, kernel, "k", *args, env=env) == 0


def test_values_computed_at_import_are_trusted_offline_only_from_a_bundle(tmp_path):
    src = tmp_path / "src"
    write_files(src, COMPUTED["a value read from an environment variable"])
    kernel = src / "kernel.py"
    args = ["4", "ptr", "ptr", "i:1000", "i:128"]
    cache = tmp_path / "cache"
    assert compiles(cache, kernel, "k", *args) == 1
    offline = probe(cache, kernel, "k", *args, env={"TRITON_JIT_OFFLINE": "1", "PYTHONHOME": "/nonexistent"},
                    check=False)
    assert offline.returncode == 1
    assert "values computed when its module was imported (kernel.py:FACTOR)" in offline.stderr
    assert "bundle" in offline.stderr
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"target": "cuda:90", "kernels": [{
        "kernel": str(kernel), "function": "k", "options": {"num_warps": 4},
        "signatures": [["*fp32:16", "*fp32:16", "i32", 128]]}]}))
    aot = os.path.join(BUILD, "bin", "triton_jit_aot")
    made = subprocess.run([aot, str(manifest), "-o", str(tmp_path / "bundle")], capture_output=True, text=True,
                          env=dict(os.environ, CUDA_VISIBLE_DEVICES="", TRITON_JIT_CACHE_DIR=str(tmp_path / "aot")),
                          timeout=600)
    assert made.returncode == 0, made.stderr
    served, _ = probe(tmp_path / "empty", kernel, "k", *args,
                      env={"TRITON_JIT_OFFLINE": "1", "PYTHONHOME": "/nonexistent",
                           "TRITON_JIT_BUNDLE_PATH": str(tmp_path / "bundle")})
    assert served["compiles"] == 0 and not served["libpython"]


# Defect 3: the text compiled is the text recorded, even when the file changes meanwhile. This
# kernel rewrites its own file while it is being imported (as an editor saving during a compile
# would): the entry must describe what was compiled, so the next process compiles the new text.
SELF_EDITING = """import pathlib
import triton
import triton.language as tl


@triton.jit
def k(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + o, tl.load(x_ptr + o, mask=o < n) * 2.0, mask=o < n)


_me = pathlib.Path(__file__)
_marker = "# EDIT" + "ED"
if _marker not in _me.read_text():
    _me.write_text(_me.read_text().replace("* 2" + ".0,", "* 3" + ".0,") + _marker + "\\n")
"""


def test_source_edited_during_compile_is_not_recorded_as_the_new_text(tmp_path):
    kernel = tmp_path / "src" / "kernel.py"
    kernel.parent.mkdir()
    kernel.write_text(SELF_EDITING)
    cache = tmp_path / "cache"
    assert compiles(cache, kernel, "k") == 1
    assert "# EDITED" in kernel.read_text() and "* 3.0, mask" in kernel.read_text()  # edited after it was read
    # The signature and the variant recorded the text that was compiled (2.0), not the file now.
    first, log = probe(cache, kernel, "k")
    assert first["compiles"] == 1
    assert "cached signature is out of date" in log and "changed" in log
    assert compiles(cache, kernel, "k") == 0


# ---- identity: never another kernel's code ---------------------------------------------------------

def test_two_files_of_one_name_never_share_entries(tmp_path):
    cache = tmp_path / "cache"
    a = tmp_path / "a" / "scale.py"
    b = tmp_path / "b" / "scale.py"
    for path, extra in ((a, ""), (b, " + 1.0")):
        path.parent.mkdir()
        path.write_text(SCALE.format(extra=extra))
    assert compiles(cache, a) == 1
    assert compiles(cache, b) == 1  # same file name and function, another kernel
    assert compiles(cache, a) == 0 and compiles(cache, b) == 0


def test_a_moved_symlink_is_another_kernel(tmp_path):
    cache = tmp_path / "cache"
    for release, extra in (("r1", ""), ("r2", " + 1.0")):
        (tmp_path / release).mkdir()
        (tmp_path / release / "scale.py").write_text(SCALE.format(extra=extra))
    current = tmp_path / "current"
    current.symlink_to(tmp_path / "r1")
    assert compiles(cache, current / "scale.py") == 1
    current.unlink()
    current.symlink_to(tmp_path / "r2")
    assert compiles(cache, current / "scale.py") == 1
    assert compiles(cache, tmp_path / "r2" / "scale.py") == 0  # the same file by its real path


def test_an_entry_swapped_in_from_another_kernel_is_refused_and_rebuilt(tmp_path):
    cache = tmp_path / "cache"
    a = tmp_path / "a" / "scale.py"
    b = tmp_path / "b" / "scale.py"
    for path, extra in ((a, ""), (b, " + 1.0")):
        path.parent.mkdir()
        path.write_text(SCALE.format(extra=extra))
    probe(cache, a)
    probe(cache, b)
    variants = entries(cache, ".variant")
    assert len(variants) == 2 and os.path.basename(variants[0]) == os.path.basename(variants[1])
    a_entry = next(v for v in variants if cache_entries.read(v)[1]["function"].startswith(f"file:{a}"))
    b_entry = next(v for v in variants if v != a_entry)
    shutil.copy(a_entry, b_entry)  # b's directory now holds a's cubin under b's name
    result, log = probe(cache, b)
    assert result["compiles"] == 1
    assert "is damaged (it belongs to 'file:" in log
    assert cache_entries.read(b_entry)[1]["function"].startswith(f"file:{b}")


# ---- damaged entries ---------------------------------------------------------------------------------

@pytest.mark.parametrize("damage", ["bad_json", "checksum", "truncated", "empty", "renamed_key", "wrong_type",
                                    "wrapping_sizes", "garbage_metadata"])
def test_damaged_entry_is_removed_and_rebuilt(tmp_path, kernel, damage):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, ".variant")
    data = open(path, "rb").read()
    kind, header, payload = cache_entries.read(path)
    if damage == "bad_json":
        damaged = cache_entries.frame(kind, b"{not json", payload)
    elif damage == "checksum":
        damaged = data[:-10] + bytes(b ^ 0xFF for b in data[-10:])
    elif damage == "truncated":
        damaged = data[: len(data) // 2]
    elif damage == "empty":
        damaged = b""
    elif damage == "renamed_key":
        header["binary_bytes"] = header.pop("binary_size")
        damaged = cache_entries.frame(kind, json.dumps(header).encode(), payload)
    elif damage == "wrong_type":
        header["metadata_size"] = str(header["metadata_size"])
        damaged = cache_entries.frame(kind, json.dumps(header).encode(), payload)
    elif damage == "wrapping_sizes":
        header["metadata_size"] = 2**64 - 1
        header["binary_size"] = len(payload) + 1
        damaged = cache_entries.frame(kind, json.dumps(header).encode(), payload)
    else:  # a valid frame whose metadata does not describe a kernel
        size = header["metadata_size"]
        header["metadata_size"] = 2
        damaged = cache_entries.frame(kind, json.dumps(header).encode(), b"{}" + payload[size:])
    open(path, "wb").write(damaged)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "is damaged" in log and "removing it and compiling again" in log
    assert "nlohmann" not in log and "json.exception" not in log
    assert compiles(cache, kernel) == 0  # rebuilt, valid


def test_damaged_signature_is_removed_and_rebuilt(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, "signature")
    kind, header, payload = cache_entries.read(path)
    cache_entries.write(path, kind, header, b'{"name": "scale", "params": "not a list"}')
    result, log = probe(cache, kernel)
    assert result["compiles"] == 0 and result["libpython"]  # described again; the variant is still good
    assert "is damaged" in log
    assert compiles(cache, kernel, env={"PYTHONHOME": "/nonexistent", "TRITON_JIT_OFFLINE": "1"}) == 0


FAKE_COMPILER = """import importlib.util
import json
import sys

sys.path.append({real_dir!r})
_spec = importlib.util.spec_from_file_location("triton_jit_compile_real", {real!r})
real = importlib.util.module_from_spec(_spec)
sys.modules["triton_jit_compile_real"] = real
_spec.loader.exec_module(real)
KernelLookupError = real.KernelLookupError
describe = real.describe


def compile(*args):
    cubin, metadata, sources, ir = real.compile(*args)
    metadata = json.loads(metadata)
    metadata["num_warps"] = "many"
    return cubin, json.dumps(metadata), sources, ir
"""


def test_malformed_compile_result_is_an_error_and_is_not_persisted(tmp_path, kernel):
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "triton_jit_compile.py").write_text(
        FAKE_COMPILER.format(real=os.path.join(ROOT, "src", "compiler", "python", "triton_jit_compile.py"),
                             real_dir=os.path.join(ROOT, "src", "compiler", "python")))
    cache = tmp_path / "cache"
    result = probe(cache, kernel, env={"TRITON_JIT_SCRIPTS_DIR": str(scripts)}, check=False)
    assert result.returncode == 1
    assert "scale: malformed compile result: 'num_warps' is not an integer" in result.stderr
    assert entries(cache, ".variant") == []
    assert compiles(cache, kernel) == 1  # the real compiler, later, compiles and keeps it


def test_two_processes_racing_on_one_variant_leave_one_valid_entry(tmp_path, kernel):
    cache = tmp_path / "cache"
    results = []

    def run():
        results.append(probe(cache, kernel)[0])

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 2 and all(r["cubin"] > 0 for r in results)
    assert len(entries(cache, ".variant")) == 1
    assert not [p for d, _, files in os.walk(cache) for p in files if ".tmp." in p]
    assert compiles(cache, kernel) == 0


# ---- permissions and strange files -----------------------------------------------------------------

def test_world_writable_cache_directory_is_refused(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    os.chmod(cache, 0o777)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "is writable by everyone; refusing to use it" in log


def test_every_directory_is_private_whatever_the_umask(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel, umask=0)
    for directory, subdirs, files in os.walk(cache):
        assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700, directory
        for f in files:
            assert stat.S_IMODE(os.stat(os.path.join(directory, f)).st_mode) == 0o600, f
    # A function directory removed and made again is private too.
    (variant,) = entries(cache, ".variant")
    shutil.rmtree(os.path.dirname(variant))
    assert compiles(cache, kernel, umask=0) == 1
    assert stat.S_IMODE(os.stat(os.path.dirname(variant)).st_mode) == 0o700


def test_a_subdirectory_others_can_write_is_dropped_and_rebuilt(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (variant,) = entries(cache, ".variant")
    function_dir = os.path.dirname(variant)
    os.chmod(function_dir, 0o777)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "has mode 0777 (expected 0700); removing it" in log
    assert stat.S_IMODE(os.stat(function_dir).st_mode) == 0o700


def test_a_layout_directory_that_is_a_symlink_is_not_followed(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    elsewhere = tmp_path / "elsewhere"
    shutil.move(str(cache / "v2"), str(elsewhere))
    (cache / "v2").symlink_to(elsewhere)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "is not a directory of ours (a link or a file); refusing it" in log
    assert (cache / "v2").is_symlink()


def test_a_fifo_in_place_of_an_entry_does_not_hang_the_reader(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (variant,) = entries(cache, ".variant")
    os.unlink(variant)
    os.mkfifo(variant)
    result, log = probe(cache, kernel)  # a blocking open would hang here (the probe has a timeout)
    assert result["compiles"] == 1
    assert "is not a regular file" in log
    assert stat.S_ISREG(os.stat(variant).st_mode)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a file to another user")
def test_entry_owned_by_another_user_is_refused(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, ".variant")
    os.chown(path, 12345, 12345)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "belongs to another user; refusing to load it" in log


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give a directory to another user")
def test_function_directory_owned_by_another_user_is_refused(tmp_path, kernel):
    cache = tmp_path / "cache"
    probe(cache, kernel)
    (path,) = entries(cache, ".variant")
    os.chown(os.path.dirname(path), 12345, 12345)
    result, log = probe(cache, kernel)
    assert result["compiles"] == 1
    assert "belongs to another user (uid 12345); refusing to use it" in log
