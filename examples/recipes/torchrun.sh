#!/usr/bin/env bash
# torchrun on one node: every rank, DataLoader worker and compile worker is
# in the record; the launcher's "exitcode: -9" is matched to the rank the
# kernel killed.
set -euo pipefail
ftdiag run -- torchrun --standalone --nproc-per-node 8 train.py --save_steps 500
# Then: ftdiag analyze ftdiag-runs/
