"""A training loop whose checkpoint save gathers full copies of the weights in
host RAM, the way ZeRO-2 saves do (reference: each rank builds a full
state_dict on CPU). Training itself fits; the save does not."""
import os
import time

rank = int(os.environ.get("RANK", "0"))
weights_mib = int(os.environ.get("EXAMPLE_WEIGHTS_MIB", "96"))
save_every = 20

# "The model": resident the whole time, like parameters in host memory.
weights = bytearray(weights_mib * 1024 * 1024)
for i in range(0, len(weights), 4096):
    weights[i] = 1

for step in range(1, 41):
    time.sleep(0.1)  # a training step
    if rank == 0:
        print(f"{{'loss': {2.0 / step:.4f}, 'learning_rate': 2e-05, 'epoch': {step / 40:.2f}}}", flush=True)
    if step % save_every == 0:
        if rank == 0:
            print(f"Saving model checkpoint to output/checkpoint-{step}", flush=True)
        # Gathering the full state dict: fp32 master copy plus bf16 copy,
        # touched page by page so the memory is really used.
        gathered = []
        for copy in range(4):
            buf = bytearray(len(weights))
            for i in range(0, len(buf), 4096):
                buf[i] = 1
            gathered.append(buf)
            time.sleep(0.05)
        del gathered
print(f"rank {rank} done", flush=True)
