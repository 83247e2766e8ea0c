"""A small torchrun-like launcher: starts one worker per rank, waits, and when
a worker dies tears the others down and reports it the way
torch.distributed.elastic does ("exitcode: -9")."""
import os
import signal
import subprocess
import sys
import time

WORLD_SIZE = int(os.environ.get("EXAMPLE_WORLD_SIZE", "2"))
worker = os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.py")

procs = []
for rank in range(WORLD_SIZE):
    env = dict(os.environ, RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(WORLD_SIZE))
    procs.append(subprocess.Popen([sys.executable, worker], env=env))

failed = None
while failed is None and any(p.poll() is None for p in procs):
    for rank, p in enumerate(procs):
        if p.poll() not in (None, 0):
            failed = (rank, p)
            break
    time.sleep(0.1)

if failed is None:
    sys.exit(0)

rank, p = failed
for other in procs:
    if other.poll() is None:
        print(f"Sending process {other.pid} closing signal SIGTERM", file=sys.stderr, flush=True)
        other.send_signal(signal.SIGTERM)
for other in procs:
    other.wait()
print(
    f"ERROR: failed (exitcode: {p.returncode}) local_rank: {rank} (pid: {p.pid}) of binary: {sys.executable}",
    file=sys.stderr,
    flush=True,
)
sys.exit(1)
