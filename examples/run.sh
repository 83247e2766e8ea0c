#!/usr/bin/env bash
# Sets up ftdiag, then runs the bundled example: a two-rank "training" job
# whose checkpoint save is OOM-killed by its memory cgroup (512 MiB), under
# `ftdiag run`, followed by `ftdiag analyze` of the record.
set -euo pipefail
source "$(dirname "$0")/setup.sh"

# The real PyTorch job when torch is there (Debian's python3-torch, CPU): a
# transformer LM trained with AdamW on two ranks over gloo, whose first
# checkpoint save gathers full CPU copies of weights and optimizer state on
# every rank, in a 1250 MiB memory cgroup. Without torch, a torch-free job
# that does the same with plain buffers, in 512 MiB.
if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  out=examples/output/torch-checkpoint-oom
  limit=1250M
  job=(/usr/bin/python3 examples/torch-checkpoint-oom/train.py --steps 8 --save-every 4 --out examples/output/torch-checkpoints)
else
  echo "(python3-torch is not installed: running the torch-free example)"
  out=examples/output/oom-at-checkpoint
  limit=512M
  job=(/usr/bin/python3 examples/oom-at-checkpoint/launch.py)
fi
rm -rf "$out" examples/output/torch-checkpoints
echo "== ftdiag run (a job killed at its first checkpoint save; $limit cgroup limit)"
set +e
scripts/with-memory-limit.sh "$limit" -- \
  "$FTDIAG" run --job-dir "$out" --interval 0.1 -- "${job[@]}"
status=$?
set -e
if [ "$status" -eq 77 ]; then
  echo "The example needs a memory cgroup (run as root on Linux with cgroup v1 or v2)." >&2
  exit 77
fi
echo "== the job's exit status as the shell saw it: $status"
echo
echo "== ftdiag analyze $out"
"$FTDIAG" analyze "$out"
