"""Real PyTorch jobs that die while nothing watches them but their own logs.

A user starts these the usual way (`python3 unsupervised_jobs.py ... | tee
train.log`, a bash script, `torchrun --nproc-per-node 2 ...`), the job dies,
and `ftdiag analyze` gets only the folder the job wrote. Each prints the
lines a transformers Trainer prints, so the phase of training shows in the
log. Run directly, the job is one process; under torch.distributed.run it
trains on every rank over gloo.

  worker-oom   a Dataset that caches every document it reads grows inside
               both DataLoader workers until the OOM killer kills one; the
               main process then fails with DataLoader's own RuntimeError
  save-oom     trains a few steps, then "Saving model checkpoint to
               OUT/checkpoint-N": starts tmp-checkpoint-N/ and gathers the
               state dict in host memory on every rank (as a ZeRO-2 save
               does) until the OOM killer kills a rank, before torch.save
               has written it
  zero2-save   a larger model (vocabulary x width embedding and head), its
               base weights published first as a Hugging Face folder
               (OUT/base-model: config.json and model.safetensors; with
               --publish-model-only that is all it does), trains a small
               adapter on the frozen base for two steps with AdamW, then
               saves as the Trainer saves under ZeRO-1/2: every rank clones
               the whole state dict (the frozen base included) to host
               memory, rank 0 writes it (--vocab, --width size the model).
               As a Trainer script's command line would, it may name its
               DeepSpeed config (--deepspeed FILE: its micro-batch is used),
               its base model (--model_name_or_path DIR: where the base is
               published) and when it saves (--save_steps N, default 2);
               --step-seconds paces the steps
  segfault     rank 1 faults in native code (a null pointer read) in its
               third step
  wait         trains slowly until something outside stops the launcher

  python3 unsupervised_jobs.py --scenario NAME --out DIR

Every process prints "rank R pid P" once it is set up, so a test knows the
job is running (and whom to aim at) from the log alone.
"""
import argparse
import ctypes
import json
import os
import struct
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.utils.data import DataLoader, Dataset

VOCAB = 1024
WIDTH = 32
SEQUENCE = 16
BATCH = 4
STEPS_PER_EPOCH = 500  # only for the "epoch" the log lines print


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, WIDTH)
        self.head = nn.Linear(WIDTH, VOCAB)

    def forward(self, tokens):
        return self.head(torch.tanh(self.embed(tokens)))


class Trainer:
    """One rank of data-parallel training; gradients averaged over gloo
    when there is more than one."""

    def __init__(self):
        self.distributed = "WORLD_SIZE" in os.environ
        if self.distributed:
            dist.init_process_group("gloo")
            self.rank, self.world = dist.get_rank(), dist.get_world_size()
        else:
            self.rank, self.world = 0, 1
        torch.set_num_threads(1)
        torch.manual_seed(0)
        self.model = TinyLM()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=5e-5)
        self.generator = torch.Generator().manual_seed(self.rank)
        self.step = 0
        print(f"rank {self.rank} pid {os.getpid()}", flush=True)

    def random_batch(self) -> torch.Tensor:
        return torch.randint(0, VOCAB, (BATCH, SEQUENCE + 1), generator=self.generator)

    def train_step(self, tokens: torch.Tensor) -> torch.Tensor:
        logits = self.model(tokens[:, :-1])
        loss = nn.functional.cross_entropy(logits.reshape(-1, VOCAB), tokens[:, 1:].reshape(-1))
        self.optimizer.zero_grad()
        loss.backward()
        if self.distributed:
            for p in self.model.parameters():
                dist.all_reduce(p.grad)
                p.grad /= self.world
        self.optimizer.step()
        self.step += 1
        if self.rank == 0:
            epoch = self.step / STEPS_PER_EPOCH
            print(f"{{'loss': {loss.item():.4f}, 'learning_rate': 5e-05, 'epoch': {epoch:.3f}}}", flush=True)
        return loss

    def announce_training(self, steps: str) -> None:
        if self.rank == 0:
            print("***** Running training *****", flush=True)
            print(f"  Num processes = {self.world}", flush=True)
            print(f"  Total optimization steps = {steps}", flush=True)


class CachingTextDataset(Dataset):
    """Token sequences read from 'disk', each kept whole in a cache after its
    first read. The cache lives in each DataLoader worker's own memory and a
    shuffled sampler keeps asking for new indices: the workers grow until
    the OOM killer stops one."""

    def __init__(self, length: int):
        self.length = length
        self.cache = {}

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if index not in self.cache:
            self.cache[index] = bytearray(4 * 1024 * 1024)  # the decoded document
        g = torch.Generator().manual_seed(index)
        return torch.randint(0, VOCAB, (SEQUENCE + 1,), generator=g)


def worker_oom(trainer: Trainer, args) -> None:
    # Batches through files in /dev/shm, as jobs set to avoid "Too many open
    # files". It also keeps the main process from connecting back to a worker
    # to receive a batch: with the default strategy, a worker killed while
    # handing one over makes the main process fail with ConnectionResetError
    # (about one run in three), and the log then names no worker at all.
    torch.multiprocessing.set_sharing_strategy("file_system")
    loader = DataLoader(CachingTextDataset(100_000), batch_size=BATCH, shuffle=True, num_workers=2)
    trainer.announce_training(str(len(loader)))
    for tokens in loader:
        trainer.train_step(tokens)


def save_oom(trainer: Trainer, args) -> None:
    """A save that gathers a full copy of the (here: made-up, large) weights
    and optimizer moments in host RAM before writing them, in a staging
    folder renamed once the save is whole, as the Trainer saves."""
    trainer.announce_training("100")
    for _ in range(10):
        trainer.train_step(trainer.random_batch())
    checkpoint = os.path.join(args.out, f"checkpoint-{trainer.step}")
    staging = os.path.join(args.out, f"tmp-checkpoint-{trainer.step}")
    if trainer.rank == 0:
        print(f"Saving model checkpoint to {checkpoint}", flush=True)
        os.makedirs(staging, exist_ok=True)
        with open(os.path.join(staging, "trainer_state.json"), "w") as f:
            f.write('{"global_step": %d}\n' % trainer.step)
    state = {}
    for index in range(1000):  # 32 MiB an index: far more than the memory limit
        state[f"model.layers.{index}.mlp.weight"] = torch.full((4 << 20,), float(index))
        state[f"optimizer.state.{index}.exp_avg"] = torch.full((4 << 20,), 0.5)
    torch.save(state, os.path.join(staging, "pytorch_model.bin"))
    os.replace(staging, checkpoint)


class WideLM(nn.Module):
    """A wide embedding and head, frozen, with a small trainable low-rank
    adapter between them: as LoRA trains, the state dict still holds the
    whole base model."""

    def __init__(self, vocab: int, width: int, rank: int = 8):
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)
        self.adapter_a = nn.Parameter(torch.randn(width, rank) * 0.01)
        self.adapter_b = nn.Parameter(torch.zeros(rank, width))
        for frozen in (self.embed, self.head):
            frozen.requires_grad_(False)

    def forward(self, tokens):
        h = torch.tanh(self.embed(tokens))
        return self.head(h + h @ self.adapter_a @ self.adapter_b)


def write_safetensors(path: str, tensors: dict) -> None:
    """The safetensors format by hand (Debian has no safetensors module): a
    little-endian header length, the JSON header, the tensors' bytes."""
    header, blobs, offset = {}, [], 0
    for name, tensor in tensors.items():
        data = tensor.detach().contiguous().numpy().tobytes()
        header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(raw)))
        f.write(raw)
        for blob in blobs:
            f.write(blob)


def zero2_save(trainer: Trainer, args) -> None:
    model = WideLM(args.vocab, args.width)
    folder = args.model_name_or_path or os.path.join(args.out, "base-model")
    micro_batch = BATCH
    if args.deepspeed:
        with open(args.deepspeed) as f:
            micro_batch = json.load(f).get("train_micro_batch_size_per_gpu", BATCH)
    if trainer.rank == 0 and not os.path.exists(folder):
        os.makedirs(folder)
        with open(os.path.join(folder, "config.json"), "w") as f:
            json.dump({"architectures": ["WideLMForCausalLM"], "model_type": "wide-lm", "hidden_size": args.width,
                       "num_hidden_layers": 0, "vocab_size": args.vocab, "torch_dtype": "float32"}, f)
        write_safetensors(os.path.join(folder, "model.safetensors"), model.state_dict())
    if args.publish_model_only:
        return
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trainable, lr=5e-5)
    trainer.announce_training("100")
    for step in range(1, args.save_steps + 1):  # AdamW's moments exist after the first step
        tokens = trainer.random_batch()[:micro_batch] % args.vocab
        loss = nn.functional.cross_entropy(model(tokens[:, :-1]).reshape(-1, args.vocab), tokens[:, 1:].reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        if trainer.distributed:
            for p in trainable:
                dist.all_reduce(p.grad)
                p.grad /= trainer.world
        optimizer.step()
        if trainer.rank == 0:
            print(f"{{'loss': {loss.item():.4f}, 'learning_rate': 5e-05, 'epoch': {step / STEPS_PER_EPOCH:.3f}}}", flush=True)
        time.sleep(args.step_seconds)
    checkpoint = os.path.join(args.out, f"checkpoint-{args.save_steps}")
    if trainer.rank == 0:
        print(f"Saving model checkpoint to {checkpoint}", flush=True)
        os.makedirs(checkpoint, exist_ok=True)
    # accelerate's get_state_dict under ZeRO-1/2: clone_tensors_for_torch_save on every rank.
    state = {k: v.detach().to("cpu", copy=True) for k, v in model.state_dict().items()}
    if trainer.rank == 0:
        torch.save(state, os.path.join(checkpoint, "pytorch_model.bin"))
    del state
    torch.save(optimizer.state_dict(), os.path.join(checkpoint, f"optimizer_rank{trainer.rank}.pt"))


def segfault(trainer: Trainer, args) -> None:
    trainer.announce_training("100")
    for _ in range(100):
        trainer.train_step(trainer.random_batch())
        if trainer.rank == 1 and trainer.step == 3:
            # Rank 0 prints its step-3 line now and then waits in step 4's
            # all-reduce: faulthandler's lines are then not cut by it.
            time.sleep(1.0)
            ctypes.string_at(0)  # a native extension reading through a null pointer


def wait(trainer: Trainer, args) -> None:
    trainer.announce_training("until stopped")
    started = time.time()
    while time.time() - started < args.max_seconds:
        trainer.train_step(trainer.random_batch())
        time.sleep(0.5)


SCENARIOS = {"worker-oom": worker_oom, "save-oom": save_oom, "zero2-save": zero2_save, "segfault": segfault, "wait": wait}

if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenario", required=True, choices=sorted(SCENARIOS))
    parser.add_argument("--out", default=".")
    parser.add_argument("--max-seconds", type=float, default=90, help="wait: stop on its own after this")
    parser.add_argument("--vocab", type=int, default=80000, help="zero2-save: the vocabulary")
    parser.add_argument("--width", type=int, default=512, help="zero2-save: the embedding width")
    parser.add_argument("--save_steps", type=int, default=2, help="zero2-save: the step that saves")
    parser.add_argument("--step-seconds", type=float, default=0, help="zero2-save: a pause after each step")
    parser.add_argument("--deepspeed", help="zero2-save: the DeepSpeed config (its micro-batch size is used)")
    parser.add_argument("--model_name_or_path", help="zero2-save: the base model's folder (default OUT/base-model)")
    parser.add_argument("--finetuning_type", choices=["freeze"], help="zero2-save: what it trains (the adapter on a frozen base)")
    parser.add_argument("--save_safetensors", choices=["False"], help="zero2-save: it saves with torch.save")
    parser.add_argument("--publish-model-only", action="store_true",
                        help="zero2-save: only write OUT/base-model (as a download would, before the job)")
    args = parser.parse_args()
    trainer = Trainer()
    SCENARIOS[args.scenario](trainer, args)
    if trainer.distributed:
        dist.destroy_process_group()
