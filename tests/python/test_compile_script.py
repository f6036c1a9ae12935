"""The compile script on its own: it compiles without a GPU and without importing torch."""
import json
import os
import subprocess
import sys

from conftest import KERNELS, ROOT

PROBE = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import triton_jit_compile as c
started = time.perf_counter()
kernel = sys.argv[2] + "/parity_kernels.py"
described, sources = c.describe(kernel, "", "pointwise", [])
described = json.loads(described)
request = {"signature": ["*fp32", "*fp32", "*fp32", "i32", "constexpr"], "constexprs": {"4": {"int": 256}},
           "attrs": {"0": [["tt.divisibility", 16]], "1": [["tt.divisibility", 16]], "2": [["tt.divisibility", 16]],
                     "3": []},
           "options": {"num_warps": 4, "num_stages": 3}, "target": "cuda:90"}
cubin, metadata, compiled_sources = c.compile(kernel, "", "pointwise", [], json.dumps(request))
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
