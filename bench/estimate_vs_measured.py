#!/usr/bin/env python3
"""The memory model against real PyTorch: a data-parallel job on CPU ranks
(bench/torch_jobs/zero2_style_save.py: gloo, AdamW, fp32) saves the way the
HF Trainer saves under ZeRO-0/1/2 (every rank clones the whole state dict,
rank 0 writes it), at several model sizes. Each rank measures its resident
memory before the save and with its clone alive; `ftdiag estimate --device
cpu` predicts the same node's figures.

What is compared:
- the save's increment (the clones: N x 4 bytes x parameters, predicted
  independently of any baseline) against the measured increase;
- the save peak, where the baseline per rank is taken from the measured
  memory before the save minus the modelled training states (so only the
  save's part is a prediction there).

Each size runs twice: full fine-tuning, and a frozen base with a small
adapter trained (as LoRA: `--finetune lora --trainable T` with the count
the job printed), whose save still clones the whole base.

    bench/estimate_vs_measured.py [--build build/default] [--ranks 2] [--vocabs 32000,64000,128000,256000]
"""
import argparse
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
JOB = ROOT / "bench/torch_jobs/zero2_style_save.py"


def measure(vocab: int, ranks: int, adapter: bool) -> dict:
    out = subprocess.run(["/usr/bin/python3", str(JOB), "--vocab", str(vocab), "--ranks", str(ranks)] + (["--adapter"] if adapter else []),
                         capture_output=True, text=True, timeout=600, check=True).stdout
    m = re.search(r"measured: ranks=(\d+) params=(\d+) trainable=(\d+) before=(\d+) during=(\d+)", out)
    if not m:
        sys.exit(f"the job printed no measurement:\n{out}")
    return {"ranks": int(m[1]), "params": int(m[2]), "trainable": int(m[3]), "before": int(m[4]), "during": int(m[5])}


def predict(ftdiag: Path, m: dict, baseline: float, adapter: bool) -> dict:
    # The adapter's count comes on top of the base in ftdiag's LoRA split.
    params = m["params"] - m["trainable"] if adapter else m["params"]
    finetune = ["--finetune", "lora", "--trainable", str(m["trainable"])] if adapter else []
    out = subprocess.run([str(ftdiag), "estimate", "--no-gpu", "--params", str(params), "--dtype", "fp32", "--zero-stage", "0",
                          "--gpus-per-node", str(m["ranks"]), "--device", "cpu", "--save-format", "torch",
                          # the job's batches: 2 sequences of 16 tokens
                          "--micro-batch", "2", "--seq-len", "16",
                          "--rank-baseline", str(int(baseline)), "--host-mem", "1T", "--format", "json"] + finetune,
                         capture_output=True, text=True, timeout=60, check=True).stdout
    return json.loads(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default="build/default")
    parser.add_argument("--ranks", type=int, default=2)
    parser.add_argument("--vocabs", default="32000,64000,128000,256000")
    args = parser.parse_args()
    ftdiag = ROOT / args.build / "ftdiag"
    print(f"{'trained':>8} {'params':>10} {'measured +save':>15} {'predicted +save':>16} {'error':>7}   {'measured peak':>14} {'predicted peak':>15} {'error':>7}")
    for vocab, adapter in ((int(v), a) for v in args.vocabs.split(",") for a in (False, True)):
        m = measure(vocab, args.ranks, adapter)
        # fp32 weights, and for what is trained its gradients and Adam's two moments, per rank
        training_states = 4 * m["params"] + 12 * m["trainable"]
        baseline = m["before"] / m["ranks"] - training_states
        p = predict(ftdiag, m, baseline, adapter)
        host = p["per_node_host"]
        predicted_increment = host["checkpoint_save_peak_bytes"] - host["steady_bytes"]
        measured_increment = m["during"] - m["before"]
        inc_error = (predicted_increment - measured_increment) / measured_increment
        peak_error = (host["checkpoint_save_peak_bytes"] - m["during"]) / m["during"]
        print(f"{'adapter' if adapter else 'all':>8} {m['params'] / 1e6:>9.1f}M {measured_increment / 1e6:>13.1f} MB {predicted_increment / 1e6:>14.1f} MB {inc_error:>+7.1%}"
              f"   {m['during'] / 1e6:>11.1f} MB {host['checkpoint_save_peak_bytes'] / 1e6:>12.1f} MB {peak_error:>+7.1%}", flush=True)


if __name__ == "__main__":
    main()
