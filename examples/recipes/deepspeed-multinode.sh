#!/usr/bin/env bash
# DeepSpeed across nodes: the deepspeed launcher starts the ranks over ssh,
# so ftdiag wraps the launcher on the first node and the per-node launch on
# every node (DeepSpeed's --launcher_args), all into one shared job directory.
set -euo pipefail
JOB_DIR=/shared/ftdiag/$(date +%Y%m%d-%H%M%S)
ftdiag run --job-dir "$JOB_DIR" -- \
  deepspeed --hostfile hostfile --num_nodes 2 --num_gpus 8 \
    train.py --deepspeed ds_z2.json
# A rank killed with -9 at the first save: ftdiag analyze "$JOB_DIR"
