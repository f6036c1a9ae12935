"""A tensor-parallel gated MLP block on every GPU of the machine, one process per GPU, started by
torchrun, with this library's operators inside torch.distributed (NCCL):

    h = rms_norm(x) ; a = silu_and_mul(h @ W1) ; y = x + all_reduce(a @ W2)

W1 (gate and up projections) is split by columns, W2 by rows; each rank computes its share with
triton_jit ops (rms_norm, mm, silu_and_mul, add, sum) and NCCL sums the partial products. Rank 0
checks the result against the same block computed on one GPU with ATen, in float32.

    torchrun --nproc_per_node=2 tests/distributed/tp_mlp.py <libtriton_jit_ops.so>
"""
import os
import sys

import torch
import torch.distributed as dist


def block_reference(x, w_gate, w_up, w2, norm_weight):
    h = torch.nn.functional.rms_norm(x, (x.shape[-1],), norm_weight, 1e-6)
    a = torch.nn.functional.silu(h @ w_gate) * (h @ w_up)
    return x + a @ w2


def main():
    torch.ops.load_library(sys.argv[1])
    ops = torch.ops.triton_jit
    dist.init_process_group("nccl")
    rank, world = dist.get_rank(), dist.get_world_size()
    device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    torch.cuda.set_device(device)

    tokens, hidden, ffn = 96, 512, 1536
    assert ffn % world == 0
    generator = torch.Generator().manual_seed(0)  # the same full weights on every rank
    make = lambda *shape, scale=1.0: (torch.randn(*shape, generator=generator) * scale)
    x = make(tokens, hidden)
    w_gate, w_up = make(hidden, ffn, scale=hidden ** -0.5), make(hidden, ffn, scale=hidden ** -0.5)
    w2 = make(ffn, hidden, scale=ffn ** -0.5)
    norm_weight = 1 + 0.1 * make(hidden)

    for dtype, tolerance in ((torch.float32, 1e-4), (torch.bfloat16, 3e-2)):
        shard = slice(rank * ffn // world, (rank + 1) * ffn // world)
        # The rank's gate and up columns side by side: silu_and_mul pairs them.
        w1_local = torch.cat([w_gate[:, shard], w_up[:, shard]], dim=1).to(device, dtype)
        w2_local = w2[shard].to(device, dtype)
        xd = x.to(device, dtype)
        h = ops.rms_norm(xd, [hidden], norm_weight.to(device, dtype), 1e-6)
        partial = ops.mm(ops.silu_and_mul(ops.mm(h, w1_local)), w2_local)
        dist.all_reduce(partial)
        y = ops.add.Tensor(xd, partial)
        checksum = ops.sum.dim_IntList(y.float(), None)

        if rank == 0:
            want = block_reference(x.double(), w_gate.double(), w_up.double(), w2.double(), norm_weight.double())
            error = ((y.double().cpu() - want).abs().max() / want.abs().max()).item()
            print(f"tp_mlp {dtype} world={world}: max relative error {error:.2e} (tolerance {tolerance:g}), "
                  f"sum {checksum.item():.4f} against {want.sum().item():.4f}", flush=True)
            assert error < tolerance, f"{dtype}: relative error {error:.3e} over {tolerance}"
    dist.barrier()
    dist.destroy_process_group()
    if rank == 0:
        print("tp_mlp: ok", flush=True)


if __name__ == "__main__":
    main()
