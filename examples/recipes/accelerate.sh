#!/usr/bin/env bash
# accelerate launch with a DeepSpeed ZeRO-2 config: ftdiag reads the config
# (accelerate's deepspeed_config) for the verdict and the estimate.
set -euo pipefail
ftdiag preflight -- accelerate launch --config_file accelerate_zero2.yaml train.py
ftdiag run -- accelerate launch --config_file accelerate_zero2.yaml train.py
