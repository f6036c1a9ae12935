"""prune_configs_by's early_config_prune and perf_model get what Triton's Autotuner gives them:
a golden test against the installed Triton's own call, for a call that passes everything
positionally (as C++ does) and one that passes the prune's inputs by keyword (as Python
wrappers do). Runs on CPU: Triton's call is recorded before it would need a GPU."""
import json
import os
import subprocess
import sys

from conftest import KERNELS, ROOT

PROBE = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
import triton_jit_compile as c
from triton_jit_sources import load_kernel
file = sys.argv[2] + "/prune_probe_kernels.py"
keywords = sys.argv[3] == "keywords"
kernel = load_kernel(file, "", "probed", [])
calls = kernel.fn.fn.__globals__["CALLS"]
tuner = kernel.chain[1]
x = torch.zeros(256, dtype=torch.float16)
try:
    if keywords:
        kernel.chain[0][(1,)](x, 2.0, N_CTX=128, STAGE=3)
    else:
        kernel.chain[0][(1,)](x, 2.0, 128, 3)
except Exception:
    pass  # benchmarking needs a GPU; the prune has run
theirs = list(calls)
prune = [entry for entry in theirs if entry[0] == "prune"][0]
# What Triton's prune_configs keeps for that call, configs by index.
tuner.nargs = {k: (x if k == "x_ptr" else v) for k, v in prune[1].items()}
kept = [tuner.configs.index(cfg) for cfg in tuner.prune_configs(dict(prune[2], grid=(1,)))]
tuner.nargs = None
del calls[:]
arguments = [{"tensor": "fp16", "element_size": 2, "address": 4096}, {"float": (2.0).hex()}, {"int": 128},
             {"int": 3}, {"bool": True}, {"none": None}] + [{"none": None}] * 4
ours_kept = json.loads(c.prune_configs(file, "", "probed", [], 1, json.dumps(arguments)))
print(json.dumps({"theirs": theirs, "ours": list(calls), "kept": kept, "ours_kept": ours_kept}))
"""


def run_probe(how):
    out = subprocess.run([sys.executable, "-c", PROBE, os.path.join(ROOT, "src", "compiler", "python"), KERNELS, how],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_same_values(theirs, ours):
    for kind, (their_named, their_keywords), (our_named, our_keywords) in (
            (t[0], t[1:], o[1:]) for t, o in zip(theirs, ours)):
        for name, value in their_named.items():
            assert our_named.get(name, "absent") == value, (kind, "named_args", name)
        for name, value in their_keywords.items():
            assert our_keywords.get(name, "absent") == value, (kind, "keyword", name)


def test_prune_and_model_get_tritons_arguments_for_a_positional_call():
    result = run_probe("positional")
    assert [t[0] for t in result["theirs"]] == [o[0] for o in result["ours"]] == ["prune", "model", "model", "model"]
    check_same_values(result["theirs"], result["ours"])
    assert result["theirs"][0][2]["EVEN"] is True  # the outer heuristic's value comes by keyword
    assert result["ours_kept"] == result["kept"] == [1, 0]


def test_prune_and_model_get_tritons_arguments_for_keyword_inputs():
    result = run_probe("keywords")
    check_same_values(result["theirs"], result["ours"])
    assert result["theirs"][0][2]["N_CTX"] == 128  # a keyword input Triton passes by keyword, and so do we
    assert result["ours_kept"] == result["kept"] == [1, 0]
