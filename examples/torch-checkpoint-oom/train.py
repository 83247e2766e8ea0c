"""A real PyTorch fine-tuning job, small enough for a CPU: a transformer
language model trained with AdamW on two ranks over gloo, started the way
torch.multiprocessing starts ranks. Its checkpoint save does what a ZeRO-2
save does on every rank: it gathers a full copy of the fp32 weights and the
optimizer's two Adam moments on the CPU, then torch.save()s it. Training fits
in the container's memory; the save does not.

  python3 train.py [--steps N] [--save-every N] [--out DIR]

The model's size is in its embedding and output layers (a large vocabulary,
cheap to compute on a CPU): FT_EXAMPLE_VOCAB (default 32000), FT_EXAMPLE_WIDTH
(default 256), FT_EXAMPLE_LAYERS (default 2).
"""
import argparse
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int, width: int, layers: int):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        block = nn.TransformerEncoderLayer(width, nhead=8, dim_feedforward=4 * width, batch_first=True)
        self.blocks = nn.TransformerEncoder(block, num_layers=layers)
        self.head = nn.Linear(width, vocab)

    def forward(self, tokens):
        return self.head(self.blocks(self.embed(tokens)))


def gather_full_state(model: nn.Module, optimizer: torch.optim.Optimizer) -> dict:
    """Every rank builds the whole state on the CPU, as ZeRO-2's save does:
    fp32 weights plus Adam's exp_avg and exp_avg_sq, each a fresh copy."""
    state = {"model": {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}}
    moments = {}
    for group in optimizer.param_groups:
        for p in group["params"]:
            s = optimizer.state[p]
            moments[id(p)] = {k: v.to("cpu", copy=True) for k, v in s.items() if torch.is_tensor(v)}
    state["optimizer"] = moments
    return state


def rank_main(rank: int, world: int, port: int, args) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    vocab = int(os.environ.get("FT_EXAMPLE_VOCAB", "32000"))
    model = TinyLM(vocab, int(os.environ.get("FT_EXAMPLE_WIDTH", "256")), int(os.environ.get("FT_EXAMPLE_LAYERS", "2")))
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        print(f"model: {params / 1e6:.1f}M parameters, {world} ranks over gloo", flush=True)
    for step in range(1, args.steps + 1):
        tokens = torch.randint(0, vocab, (2, 17))
        logits = model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        for p in model.parameters():  # data parallel: average the gradients
            dist.all_reduce(p.grad)
            p.grad /= world
        optimizer.step()
        if rank == 0:
            print(f"{{'loss': {loss.item():.4f}, 'learning_rate': 2e-05, 'step': {step}}}", flush=True)
        if step % args.save_every == 0:
            path = os.path.join(args.out, f"checkpoint-{step}")
            if rank == 0:
                print(f"Saving model checkpoint to {path}", flush=True)
                os.makedirs(path, exist_ok=True)
            dist.barrier()
            state = gather_full_state(model, optimizer)
            torch.save(state, os.path.join(path, f"rank{rank}.pt"))
            del state
            dist.barrier()
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=12)
    parser.add_argument("--save-every", type=int, default=6)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--out", default=os.environ.get("TMPDIR", "/tmp") + f"/ft-example-{os.getpid()}")
    args = parser.parse_args()
    started = time.time()
    # Like torchrun: a rank that dies takes the job down (spawn raises, the
    # other ranks are terminated) and the launcher fails.
    mp.spawn(rank_main, args=(args.ranks, free_port(), args), nprocs=args.ranks, join=True)
    print(f"done in {time.time() - started:.1f} s", flush=True)
    sys.exit(0)
