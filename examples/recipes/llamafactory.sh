#!/usr/bin/env bash
# LLaMA-Factory: its CLI starts torchrun itself (FORCE_TORCHRUN=1); ftdiag
# wraps the CLI, and reads the recipe's YAML (finetuning_type, deepspeed,
# save_steps, cutoff_len) when analyzing the output folder.
set -euo pipefail
FORCE_TORCHRUN=1 ftdiag run --job-dir saves/run3/ftdiag -- llamafactory-cli train examples/train_full/llama3_full_sft.yaml
# After a failure, the folder LLaMA-Factory left, with ftdiag's record in it:
#   ftdiag analyze saves/run3
