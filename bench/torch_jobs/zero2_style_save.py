"""A real PyTorch data-parallel job (CPU ranks over gloo, AdamW, fp32) whose
checkpoint save does what the HF Trainer does under DeepSpeed ZeRO-0/1/2
through accelerate: every rank clones the whole state dict to CPU memory
(accelerate's get_state_dict -> clone_tensors_for_torch_save), rank 0 writes
it with torch.save, then every rank writes its optimizer state. Each rank
measures its resident memory before the save and with its clone alive, and
rank 0 prints the node's sums:

  measured: ranks=N params=P trainable=T before=BYTES during=BYTES

With --adapter the base is frozen and a rank-8 low-rank adapter on the
head's input is trained, as LoRA trains (the state dict still holds the
whole base, so the save's clones do too).

    python3 zero2_style_save.py --vocab 32000 [--width 256] [--layers 2] [--ranks 2] [--adapter] [--out DIR]
"""
import argparse
import os
import socket
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn


class TinyLM(nn.Module):
    def __init__(self, vocab: int, width: int, layers: int, adapter: bool = False):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        block = nn.TransformerEncoderLayer(width, nhead=8, dim_feedforward=4 * width, batch_first=True)
        self.blocks = nn.TransformerEncoder(block, num_layers=layers)
        self.head = nn.Linear(width, vocab)
        self.adapter = None
        if adapter:
            for frozen in (self.embed, self.blocks, self.head):
                frozen.requires_grad_(False)
            self.adapter = nn.Sequential(nn.Linear(width, 8, bias=False), nn.Linear(8, width, bias=False))

    def forward(self, tokens):
        hidden = self.blocks(self.embed(tokens))
        if self.adapter is not None:
            hidden = hidden + self.adapter(hidden)
        return self.head(hidden)


def resident_bytes() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def node_sum(value: int) -> int:
    total = torch.tensor([value], dtype=torch.float64)
    dist.all_reduce(total)
    return int(total.item())


def rank_main(rank: int, world: int, port: int, args) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyLM(args.vocab, args.width, args.layers, args.adapter)
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=2e-5)
    params = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in trained)
    for _ in range(3):  # Adam's moments exist after the first step
        tokens = torch.randint(0, args.vocab, (2, 17))
        loss = nn.functional.cross_entropy(model(tokens[:, :-1]).reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad(set_to_none=False)
        loss.backward()
        for p in trained:
            dist.all_reduce(p.grad)
            p.grad /= world
        optimizer.step()
    dist.barrier()
    before = node_sum(resident_bytes())
    clone = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    during = node_sum(resident_bytes())
    if rank == 0:
        torch.save(clone, os.path.join(args.out, "pytorch_model.bin"))
    del clone
    torch.save(optimizer.state_dict(), os.path.join(args.out, f"optim_rank{rank}.pt"))
    dist.barrier()
    if rank == 0:
        print(f"measured: ranks={world} params={params} trainable={trainable} before={before} during={during}", flush=True)
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vocab", type=int, default=32000)
    parser.add_argument("--width", type=int, default=256)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--adapter", action="store_true", help="freeze the base and train a rank-8 adapter")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        args.out = args.out or scratch
        mp.spawn(rank_main, args=(args.ranks, free_port(), args), nprocs=args.ranks, join=True)
