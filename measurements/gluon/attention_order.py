"""The Gluon attention's program order, before and after: one run times the ping-pong kernel of
an earlier copy of attention_gluon.py (--previous FILE) beside the working tree's at 32/8 heads,
d=128, bf16, causal and not, after checking both on a varlen batch. For the order that runs the
last (longest causal) query blocks first, heads fastest (attention-lpt-order.patch, not yet
measured on a GPU):
    cp operators/attention/attention_gluon.py /tmp/before.py
    git apply measurements/gluon/attention-lpt-order.patch
    python3 measurements/gluon/attention_order.py --previous /tmp/before.py
"""
import argparse
import importlib.util
import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "benchmarks"))
import gluon_attention as ga  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--previous", required=True)
    parser.add_argument("--lengths", type=int, nargs="+", default=[1024, 2048, 4096, 16384])
    args = parser.parse_args()
    spec = importlib.util.spec_from_file_location("attention_gluon_previous", args.previous)
    previous = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(previous)
    ga.KERNELS["previous"] = (previous.attention_fwd_pingpong_kernel, True)
    failed = ga.check_case(("pingpong", "previous"), "varlen", [1, 17, 300, 1000, 2100], [1, 17, 300, 1000, 2100],
                           32, 8, 128, torch.bfloat16, True)
    for n in args.lengths:
        for causal in (False, True):
            q, k, v, cu_q, cu_k = ga.make_inputs([n], [n], 32, 8, 128, torch.bfloat16)
            o = torch.empty_like(q)
            times = {name: ga.bench_one(lambda name=name: ga.gluon_attention(q, k, v, cu_q, cu_k, n, causal,
                                                                             1 / math.sqrt(128), out=o, kernel=name))
                     for name in ("previous", "pingpong")}
            ga.log(f"{n:>6} causal={int(causal)}: previous {times['previous'] * 1e3:8.1f} us, today "
                   f"{times['pingpong'] * 1e3:8.1f} us, today/previous {times['pingpong'] / times['previous']:.3f}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
