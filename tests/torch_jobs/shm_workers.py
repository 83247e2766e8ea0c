"""DataLoader workers passing large tensors through /dev/shm, as image or
long-sequence pipelines do. With a small /dev/shm (Docker's default 64 MiB)
the workers' shared-memory files do not fit: a worker dies of SIGBUS and the
main process fails with PyTorch's own message about shared memory.

  python3 shm_workers.py [--workers N] [--tensor-mib M] [--batches B]
"""
import argparse

import torch
from torch.utils.data import DataLoader, Dataset


class LargeSamples(Dataset):
    def __init__(self, count: int, mib: int):
        self.count = count
        self.elements = mib * 1024 * 1024 // 4

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        return torch.full((self.elements,), float(index))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=3)
    parser.add_argument("--tensor-mib", type=int, default=16)
    parser.add_argument("--batches", type=int, default=20)
    args = parser.parse_args()
    torch.set_num_threads(1)
    loader = DataLoader(LargeSamples(4 * args.batches, args.tensor_mib), batch_size=4, num_workers=args.workers)
    for step, batch in enumerate(loader, 1):
        print(f"{{'loss': {float(batch.mean()):.4f}, 'step': {step}}}", flush=True)
    print("done", flush=True)
