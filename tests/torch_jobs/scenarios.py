"""Real PyTorch training jobs that die the ways fine-tuning jobs die.

Each scenario is a small but real job: a transformer language model trained
with AdamW on two ranks over gloo, started the way torch.multiprocessing
starts ranks, logging the lines a transformers Trainer logs (ftdiag tells
the phase of training from them). Given the memory limit its test sets, each
dies within a minute on a small CPU:

  load-oom        every rank torch.load()s every shard of a checkpoint and the
                  memory limit is hit while "Loading checkpoint shards"
  worker-oom      a Dataset that caches what it reads grows inside the
                  DataLoader workers until the OOM killer kills a worker
  leak            the training loop keeps every step's loss (with its graph)
                  and gradients, so memory climbs step after step to the limit
  flat-jump       training at a flat level until one batch of long documents
                  needs a huge buffer at once
  external-kill   trains until something outside kills a rank (each prints
                  "rank R pid P" for it to aim at), or --max-seconds pass
  segfault-step   rank 1 faults in native code in its third step
  exception       rank 1 raises a Python exception in its third step
  consolidate-save
                  trains a few steps, then saves as ZeRO-2 does: every rank
                  gathers every rank's optimizer partitions into full CPU
                  copies (consolidate_state_dict_for_save), then torch.save()s
                  them into memory, until the memory limit is hit

  python3 scenarios.py --scenario NAME [--checkpoint DIR] [--prepare]

load-oom reads its shards from --checkpoint; `--prepare` writes them there
and exits (do it outside the memory limit: writing is not what is tested).
"""
import argparse
import ctypes
import io
import os
import socket
import sys
import time
import traceback

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, Dataset

VOCAB = 2048
WIDTH = 64
SEQUENCE = 32
BATCH = 4
STEPS_PER_EPOCH = 500  # only for the "epoch" the log lines print

SHARDS = 4
SHARD_MIB = 96


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        block = nn.TransformerEncoderLayer(WIDTH, nhead=4, dim_feedforward=4 * WIDTH, batch_first=True)
        self.blocks = nn.TransformerEncoder(block, num_layers=2)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, tokens):
        return self.head(self.blocks(self.embed(tokens)))


class Trainer:
    """Data-parallel training of one rank: gradients averaged over gloo."""

    def __init__(self, rank: int, world: int):
        self.rank = rank
        self.world = world
        torch.manual_seed(0)
        self.model = TinyLM()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=5e-5)
        self.generator = torch.Generator().manual_seed(rank)
        self.step = 0

    def random_batch(self, batch: int = BATCH, length: int = SEQUENCE + 1) -> torch.Tensor:
        return torch.randint(0, VOCAB, (batch, length), generator=self.generator)

    def forward(self, tokens: torch.Tensor):
        """The logits and the loss of next-token prediction on `tokens`."""
        logits = self.model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        return logits, loss

    def update(self, loss: torch.Tensor) -> None:
        self.optimizer.zero_grad()
        loss.backward()
        for p in self.model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= self.world
        self.optimizer.step()
        self.step += 1

    def train_step(self, tokens: torch.Tensor) -> torch.Tensor:
        logits, loss = self.forward(tokens)
        self.update(loss)
        return loss

    def log(self, loss: torch.Tensor) -> None:
        if self.rank == 0:
            epoch = self.step / STEPS_PER_EPOCH
            print(f"{{'loss': {loss.item():.4f}, 'learning_rate': 5e-05, 'epoch': {epoch:.3f}}}", flush=True)


def announce_training(trainer: Trainer, steps: str) -> None:
    if trainer.rank == 0:
        params = sum(p.numel() for p in trainer.model.parameters())
        print("***** Running training *****", flush=True)
        print(f"  Num processes = {trainer.world}", flush=True)
        print(f"  Total optimization steps = {steps}", flush=True)
        print(f"  Number of trainable parameters = {params:,}", flush=True)


# ---------------------------------------------------------------- load-oom

def shard_name(index: int) -> str:
    return f"pytorch_model-{index + 1:05d}-of-{SHARDS:05d}.bin"


def prepare_checkpoint(directory: str) -> None:
    """Shards of a state dict, as save_pretrained() writes them."""
    os.makedirs(directory, exist_ok=True)
    rows = SHARD_MIB * 1024 * 1024 // 4 // WIDTH
    for i in range(SHARDS):
        state = {f"model.layers.{i}.mlp.weight": torch.full((rows, WIDTH), 0.01 * (i + 1))}
        torch.save(state, os.path.join(directory, shard_name(i)))
    print(f"Model weights saved in {directory} ({SHARDS} shards of {SHARD_MIB} MiB)", flush=True)


def load_oom(trainer: Trainer, args) -> None:
    """Every rank materialises the whole checkpoint in host RAM, as
    from_pretrained() does without low_cpu_mem_usage: the node (or the
    container) needs one full copy per rank."""
    dist.barrier()
    started = time.time()
    state = {}
    for i in range(SHARDS):
        if trainer.rank == 0:  # the progress bar from_pretrained() shows, on stderr
            print(f"Loading checkpoint shards: {100 * i // SHARDS:3d}%|{'#' * (i * 10 // SHARDS):<10}| {i}/{SHARDS} "
                  f"[00:{int(time.time() - started):02d}<?, ?it/s]", file=sys.stderr, flush=True)
        state.update(torch.load(os.path.join(args.checkpoint, shard_name(i)), map_location="cpu"))
    print(f"rank {trainer.rank}: loaded {len(state)} tensors", flush=True)
    announce_training(trainer, "100")
    for _ in range(100):
        trainer.log(trainer.train_step(trainer.random_batch()))


# -------------------------------------------------------------- worker-oom

class CachingTextDataset(Dataset):
    """Token sequences read from 'disk', each kept in a cache after its first
    read so later epochs are faster. The cache lives in each DataLoader
    worker's own memory, never shared, and with a shuffled sampler every
    index is new: the workers grow until the OOM killer stops one."""

    def __init__(self, length: int, seed: int):
        self.length = length
        self.seed = seed
        self.cache = {}

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if index not in self.cache:
            raw = bytearray(6 * 1024 * 1024)  # the decoded document, kept whole
            self.cache[index] = raw
        g = torch.Generator().manual_seed(self.seed * 1_000_003 + index)
        return torch.randint(0, VOCAB, (SEQUENCE + 1,), generator=g)


def worker_oom(trainer: Trainer, args) -> None:
    dataset = CachingTextDataset(100_000, trainer.rank)
    loader = DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=2)
    announce_training(trainer, str(len(loader)))
    for tokens in loader:
        trainer.log(trainer.train_step(tokens))


# ------------------------------------------------------------------- leak

def leak(trainer: Trainer, args) -> None:
    """Two classic leaks: every step's loss kept as a tensor (with its
    autograd graph) for an average at the end of the epoch, and a history of
    every step's gradients kept "for monitoring" that nothing ever trims.
    Small batches keep what a step allocates and frees small beside what it
    keeps, so the climb is steady however often memory is sampled."""
    losses = []
    gradient_history = []
    announce_training(trainer, "10000")
    for _ in range(10_000):
        loss = trainer.train_step(trainer.random_batch(batch=2, length=17))
        losses.append(loss)  # should be loss.item()
        gradient_history.append([p.grad.clone() for p in trainer.model.parameters()])  # should be norms
        trainer.log(loss)


# -------------------------------------------------------------- flat-jump

def flat_jump(trainer: Trainer, args) -> None:
    """Steady training, then rank 0's shard of the data reaches a batch of
    long documents: the one-hot targets of label smoothing, done by hand,
    need batch x length x vocabulary integers (2 GiB) at once."""
    announce_training(trainer, "10000")
    started = time.time()
    for _ in range(10_000):
        tokens = trainer.random_batch()
        if trainer.rank == 0 and time.time() - started > args.flat_seconds:
            tokens = trainer.random_batch(batch=32, length=4096)
        _, loss = trainer.forward(tokens[:, :SEQUENCE + 1])
        targets = nn.functional.one_hot(tokens[:, 1:], VOCAB).float()
        smoothed = targets * 0.9 + 0.1 / VOCAB
        loss = loss + 0.0 * smoothed[:, :SEQUENCE].mean()
        trainer.update(loss)
        trainer.log(loss)


# ---------------------------------------------------------- external-kill

def external_kill(trainer: Trainer, args) -> None:
    print(f"rank {trainer.rank} pid {os.getpid()}", flush=True)
    announce_training(trainer, "until stopped")
    started = time.time()
    while time.time() - started < args.max_seconds:
        trainer.log(trainer.train_step(trainer.random_batch()))


# ---------------------------------------------------- segfault-step, exception

def segfault_step(trainer: Trainer, args) -> None:
    announce_training(trainer, "100")
    for _ in range(100):
        loss = trainer.train_step(trainer.random_batch())
        trainer.log(loss)
        if trainer.rank == 1 and trainer.step == 3:
            # A native extension dereferencing a null pointer.
            ctypes.string_at(0)


def exception(trainer: Trainer, args) -> None:
    announce_training(trainer, "100")
    for _ in range(100):
        loss = trainer.train_step(trainer.random_batch())
        trainer.log(loss)
        if trainer.rank == 1 and trainer.step == 3:
            raise RuntimeError(f"loss is NaN at step {trainer.step}: the batch has no valid labels")


# ------------------------------------------------------------ consolidate-save

PARTITION_CHUNKS = 16
CHUNK_MIB = 8


def consolidate_state_dict_for_save(trainer: Trainer, partitions):
    """What get_state_dict() does under ZeRO-2: all-gather every rank's
    partition of the fp32 weights and optimizer moments into a full copy on
    every rank, chunk by chunk over the process group."""
    full = {}
    for index, chunk in enumerate(partitions):
        gathered = [torch.empty_like(chunk) for _ in range(trainer.world)]
        dist.all_gather(gathered, chunk)
        for rank, part in enumerate(gathered):
            full[f"optimizer.state.{index}.rank{rank}"] = part.clone()
    return full


def save_checkpoint(trainer: Trainer, partitions, step: int) -> int:
    """A ZeRO-2 checkpoint save: the consolidated state, serialised."""
    if trainer.rank == 0:
        print(f"Saving model checkpoint to /out/checkpoint-{step}", flush=True)
    state = consolidate_state_dict_for_save(trainer, partitions)
    buffer = io.BytesIO()  # as a save to a filesystem held in memory (/dev/shm, tmpfs)
    torch.save(state, buffer)
    return buffer.tell()


def consolidate_save(trainer: Trainer, args) -> None:
    announce_training(trainer, "1000")
    # This rank's partition of the optimizer state, as ZeRO keeps it.
    partitions = [torch.full((CHUNK_MIB << 18,), float(trainer.rank)) for _ in range(PARTITION_CHUNKS)]
    for _ in range(3):
        trainer.log(trainer.train_step(trainer.random_batch()))
    # Under ZeRO-3 each rank saved its own partition: that fits.
    torch.save({"partitions": partitions}, io.BytesIO())
    for _ in range(3):
        trainer.log(trainer.train_step(trainer.random_batch()))
    saved = save_checkpoint(trainer, partitions, trainer.step)
    print(f"rank {trainer.rank}: saved {saved >> 20} MiB", flush=True)


SCENARIOS = {
    "load-oom": load_oom,
    "worker-oom": worker_oom,
    "leak": leak,
    "flat-jump": flat_jump,
    "external-kill": external_kill,
    "segfault-step": segfault_step,
    "exception": exception,
    "consolidate-save": consolidate_save,
}


def rank_main(rank: int, world: int, port: int, args) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.set_num_threads(1)
    try:
        SCENARIOS[args.scenario](Trainer(rank, world), args)
    except Exception:
        # A torchrun worker is a plain interpreter: its traceback reaches
        # the console as it dies. mp.spawn alone would only pass it to the
        # launcher, which prints it if this rank's death is the one it saw first.
        traceback.print_exc()
        sys.stderr.flush()
        raise
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--checkpoint", default=os.path.join(os.environ.get("TMPDIR", "/tmp"), "ft-scenario-checkpoint"))
    parser.add_argument("--prepare", action="store_true", help="write load-oom's checkpoint shards, then exit")
    parser.add_argument("--flat-seconds", type=float, default=15, help="flat-jump: seconds of flat training")
    parser.add_argument("--max-seconds", type=float, default=90, help="external-kill: stop on its own after this")
    args = parser.parse_args()
    if args.prepare:
        prepare_checkpoint(args.checkpoint)
        sys.exit(0)
    if args.scenario == "load-oom" and not os.path.exists(os.path.join(args.checkpoint, shard_name(SHARDS - 1))):
        prepare_checkpoint(args.checkpoint)
    started = time.time()
    # Like torchrun: a rank that dies takes the job down (spawn raises, the
    # other ranks are terminated) and the launcher fails.
    mp.spawn(rank_main, args=(args.ranks, free_port(), args), nprocs=args.ranks, join=True)
    print(f"done in {time.time() - started:.1f} s", flush=True)
