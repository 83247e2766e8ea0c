"""A real data-parallel PyTorch job whose ranks are Slurm tasks.

Each task of `srun -N NODES -n TASKS` is one rank: its rank and the world
come from Slurm (SLURM_PROCID, SLURM_NTASKS), or from torchrun when a
per-node torchrun starts the ranks (RANK, WORLD_SIZE), the ranks meet over TCP at
MASTER_ADDR:MASTER_PORT (c10d's TCP store, started by rank 0) and average
their gradients over gloo, as a job launched by srun does on a cluster. It
logs what a transformers Trainer logs, so the phase of training shows.

  python3 slurm_ranks.py --scenario NAME [--victim R]

  train        trains until --max-seconds pass (a time limit or scancel ends it first)
  rank-oom     trains; after --steps-before steps rank --victim starts keeping a
               copy of every batch's activations "for analysis", growing its
               memory until its node's Slurm memory cgroup kills it
"""
import argparse
import os
import sys
import time

import torch
import torch.distributed as dist
from torch import nn

VOCAB = 1024
WIDTH = 64


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.mix = nn.Linear(WIDTH, WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, tokens):
        return self.head(torch.tanh(self.mix(self.embed(tokens))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, choices=["train", "rank-oom"])
    parser.add_argument("--victim", type=int, default=-1, help="rank-oom: the rank that grows")
    parser.add_argument("--steps-before", type=int, default=20, help="rank-oom: steps before it grows")
    parser.add_argument("--max-seconds", type=float, default=120)
    args = parser.parse_args()

    rank = int(os.environ.get("RANK", os.environ["SLURM_PROCID"]))
    world = int(os.environ.get("WORLD_SIZE", os.environ["SLURM_NTASKS"]))
    node = os.environ.get("SLURMD_NODENAME", "?")
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("LOCAL_RANK", os.environ.get("SLURM_LOCALID", "0"))
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world, init_method="env://")
    print(f"rank {rank} of {world} on {node}, pid {os.getpid()}", flush=True)

    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    generator = torch.Generator().manual_seed(rank)
    if rank == 0:
        print("***** Running training *****", flush=True)
        print(f"  Num processes = {world}", flush=True)
    kept = []
    started = time.time()
    step = 0
    while time.time() - started < args.max_seconds:
        tokens = torch.randint(0, VOCAB, (4, 33), generator=generator)
        logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        optimizer.step()
        step += 1
        if args.scenario == "rank-oom" and rank == args.victim and step > args.steps_before:
            # The leak: 16 MiB a step, touched so it is resident.
            kept.append(torch.ones(4 << 20))
        if rank == 0 and step % 10 == 0:
            print(f"{{'loss': {loss.item():.4f}, 'learning_rate': 5e-05, 'epoch': {step / 1000:.3f}}}", flush=True)
        time.sleep(0.02)
    dist.destroy_process_group()
    print(f"rank {rank} done after {step} steps", flush=True)


if __name__ == "__main__":
    sys.exit(main())
