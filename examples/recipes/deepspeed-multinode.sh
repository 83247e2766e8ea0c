#!/usr/bin/env bash
# DeepSpeed across nodes: the deepspeed launcher starts each node's ranks over
# pdsh, so ftdiag goes around every rank: --no_python runs the "script" (here
# ftdiag) as a program, --no_local_rank leaves --local_rank off its arguments
# (the rank reads LOCAL_RANK, as the Trainer and deepspeed.init_distributed do).
# Every rank writes its own folder into one shared job directory
# (docs/engines/deepspeed.md).
set -euo pipefail
JOB_DIR=/shared/ftdiag/$(date +%Y%m%d-%H%M%S)
deepspeed --hostfile hostfile --no_python --no_local_rank \
  ftdiag run --job-dir "$JOB_DIR" -- \
  python -u train.py --deepspeed ds_z2.json
# A rank killed with -9 at the first save: ftdiag analyze "$JOB_DIR"
