"""DataLoader workers that hand the main process large image-like batches.
PyTorch passes each batch through a file in /dev/shm; in a container whose
/dev/shm is small (Docker's default is 64 MiB), a worker that cannot grow
its file dies of SIGBUS and the main process stops with PyTorch's message
about shared memory.

  python3 workers.py
"""
import torch
from torch.utils.data import DataLoader, Dataset


class Images(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.rand(3, 1024, 1024)  # 12 MiB of float32 per sample


if __name__ == "__main__":
    torch.set_num_threads(1)
    loader = DataLoader(Images(), batch_size=4, num_workers=2)
    for step, batch in enumerate(loader, 1):
        print(f"{{'loss': {float(batch.mean()):.4f}, 'step': {step}}}", flush=True)
