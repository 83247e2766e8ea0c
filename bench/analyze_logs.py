#!/usr/bin/env python3
"""`ftdiag analyze` on plain logs: a generated 1 GB training console read by
`ftdiag analyze DIR --format json --no-host-logs`, against `rg -c`,
`grep -cE` (lines with any of a few failure words) and `wc -l` on the same
bytes, each output sent to a file (GNU grep stops at the first match when its
output is /dev/null).

The log is what a fine-tuning job's console holds: tqdm bars redrawn with
"\\r", Trainer loss dicts, DeepSpeed log_dist lines, NCCL INFO lines,
warnings, a checkpoint save now and then, and at the end a torchrun
ChildFailedError block (a rank killed with exitcode -9) that ftdiag must
find. Two layouts of the same bytes: one file, and 8 per-rank files (the
collector reads files in parallel).

The files are written once to ${TMPDIR:-/tmp}/ftdiag-bench-analyze-logs/ and
reused while their sizes match (--fresh writes them again; --remove deletes
them afterwards). Both programs run once before timing (page cache warm),
then alternately; medians of --reps.

    bench/analyze_logs.py [--build build/default] [--size-mb 1000] [--reps 3] [--fresh] [--remove]
"""
import argparse
import json
import os
import random
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import benchlib  # noqa: E402

RANKS = 8
BASELINE_PATTERN = "exitcode|Traceback|Killed|Error"
GENERATOR_VERSION = "1"  # bump when the generated text changes: old files are rewritten

CRASH = """\
[2024-05-08 11:02:13,532] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 5938 closing signal SIGTERM
[2024-05-08 11:02:14,877] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -9) local_rank: 1 (pid: 5939) of binary: /opt/conda/bin/python
Traceback (most recent call last):
  File "/opt/conda/bin/torchrun", line 8, in <module>
    sys.exit(main())
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 346, in wrapper
    return f(*args, **kwargs)
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 794, in main
    run(args)
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py", line 785, in run
    elastic_launch(
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 134, in __call__
    return launch_agent(self._config, self._entrypoint, list(args))
  File "/opt/conda/lib/python3.10/site-packages/torch/distributed/launcher/api.py", line 250, in launch_agent
    raise ChildFailedError(
torch.distributed.elastic.multiprocessing.errors.ChildFailedError:
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
  <NO_OTHER_FAILURES>
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2024-05-08_11:02:14
  host      : node1
  rank      : 1 (local_rank: 1)
  exitcode  : -9 (pid: 5939)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 5939
============================================================
"""


def tqdm_line(rnd, step, total):
    """One line of a tqdm bar: the redraws of several steps, joined by "\\r"."""
    draws = []
    for s in range(step, step + rnd.randrange(5, 15)):
        pct = s * 100 // total
        bar = "#" * (pct // 10) + " " * (10 - pct // 10)
        draws.append(f"{pct:3d}%|{bar}| {s}/{total} [{s // 60:02d}:{s % 60:02d}<{(total - s) // 60:02d}:00, "
                     f"{rnd.uniform(1, 3):5.2f}it/s]")
    return "\r".join(draws) + "\n"


def chunk_of_lines(rnd, first_step, steps=2000):
    """A stretch of a training console: `steps` optimizer steps' worth of lines."""
    out = []
    total = 100000
    for step in range(first_step, first_step + steps):
        kind = rnd.random()
        if kind < 0.30:
            out.append(tqdm_line(rnd, step, total))
        elif kind < 0.50:
            out.append(f"{{'loss': {rnd.uniform(0.5, 2.5):.4f}, 'grad_norm': {rnd.uniform(0.1, 3):.4f}, "
                       f"'learning_rate': {rnd.uniform(1e-6, 2e-5):.6e}, 'epoch': {step / total * 3:.2f}}}\n")
        elif kind < 0.70:
            out.append(f"[2024-05-08 08:{step // 60 % 60:02d}:{step % 60:02d},{rnd.randrange(1000):03d}] [INFO] "
                       f"[logging.py:96:log_dist] [Rank 0] step={step}, skipped=0, lr=[{rnd.uniform(1e-6, 2e-5):.6e}], "
                       f"mom=[(0.9, 0.95)]\n")
        elif kind < 0.90:
            out.append(f"node{rnd.randrange(4)}:{4000 + rnd.randrange(8)}:{4100 + rnd.randrange(64)} "
                       f"[{rnd.randrange(8)}] NCCL INFO Channel {rnd.randrange(32):02d}/0 : {rnd.randrange(8)}[{rnd.randrange(8)}] "
                       f"-> {rnd.randrange(8)}[{rnd.randrange(8)}] via P2P/CUMEM/read\n")
        elif kind < 0.995:
            out.append(rnd.choice([
                "/opt/conda/lib/python3.10/site-packages/torch/utils/checkpoint.py:429: UserWarning: torch.utils."
                "checkpoint: please pass in use_reentrant=True or use_reentrant=False explicitly.\n",
                "[rank3]:[W ProcessGroupNCCL.cpp:1856] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for "
                "point-to-point collectives. (function operator())\n",
                "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.\n",
            ]))
        else:
            out.append(f"Saving model checkpoint to /scratch/out/checkpoint-{step}\n")
    return "".join(out)


def generate(folder, size):
    """console.log of `size` bytes or a little more (crash block last), and
    the same bytes cut at line ends into rank0.log ... rank7.log."""
    rnd = random.Random(7)
    pool = [chunk_of_lines(rnd, 1 + i * 2000) for i in range(8)]  # about 1 MB each, varied
    whole = folder / "one" / "console.log"
    whole.parent.mkdir(parents=True, exist_ok=True)
    with open(whole, "w") as out:
        written, i = 0, 0
        while written < size - len(CRASH):
            written += out.write(pool[i % len(pool)])
            i += 1
        out.write(CRASH)
    ranks = folder / "ranks"
    ranks.mkdir(parents=True, exist_ok=True)
    total = whole.stat().st_size
    with open(whole, "rb") as source:
        for rank in range(RANKS):
            with open(ranks / f"rank{rank}.log", "wb") as out:
                left = total // RANKS if rank < RANKS - 1 else total
                while left > 0:
                    block = source.read(min(left, 8 << 20))
                    if not block:
                        break
                    out.write(block)
                    left -= len(block)
                out.write(source.readline())  # to the end of the line
    (folder / "version").write_text(f"{GENERATOR_VERSION} {size}\n")


def ready(folder, size):
    try:
        if (folder / "version").read_text() != f"{GENERATOR_VERSION} {size}\n":
            return False
        whole = (folder / "one" / "console.log").stat().st_size
        parts = sum(p.stat().st_size for p in (folder / "ranks").glob("rank*.log"))
        return whole >= size and parts == whole
    except OSError:
        return False


def check_found(report_path):
    """The crash must be in ftdiag's report: the rank killed with exitcode -9."""
    text = Path(report_path).read_text()
    report = json.loads(text)
    if '"rank-failed"' not in text and "exitcode" not in text:
        sys.exit(f"ftdiag did not report the rank killed with exitcode -9 (see {report_path})")
    return report


def baselines(files):
    """The programs ftdiag's scan is measured against, on the same files:
    ripgrep and GNU grep counting lines with any of a few failure words (an
    alternation, as ftdiag's patterns are), and wc -l (reading and counting
    lines, nothing more). ripgrep is left out where it is not installed."""
    out = []
    if shutil.which("rg"):
        out.append(("rg -c", [shutil.which("rg"), "-c", "--no-filename", BASELINE_PATTERN, *files]))
    out.append(("grep -cE", [shutil.which("grep"), "-cE", BASELINE_PATTERN, *files]))
    out.append(("wc -l", [shutil.which("wc"), "-l", *files]))
    return out


def time_all(ftdiag, target, files, scratch, reps):
    """Medians of ftdiag and each baseline, run in interleaved rounds after a
    warm-up round (page cache warm); every output goes to a file."""
    report = scratch / "report.json"
    counts = scratch / "baseline.out"
    ftdiag_argv = [ftdiag, "analyze", str(target), "--format", "json", "--no-host-logs"]
    others = baselines([str(f) for f in files])
    warm = benchlib.spawn_and_wait(ftdiag_argv, stdout=report)
    benchlib.check_ok(warm, "ftdiag analyze")
    check_found(report)
    for name, argv in others:
        benchlib.check_ok(benchlib.spawn_and_wait(argv, stdout=counts), name)
    ftdiag_s, ftdiag_cpu = [], []
    other_s = {name: [] for name, _ in others}
    for _ in range(reps):
        r = benchlib.spawn_and_wait(ftdiag_argv, stdout=report)
        benchlib.check_ok(r, "ftdiag analyze")
        ftdiag_s.append(r.wall_s)
        ftdiag_cpu.append(r.total_cpu_s)
        for name, argv in others:
            g = benchlib.spawn_and_wait(argv, stdout=counts)
            benchlib.check_ok(g, name)
            other_s[name].append(g.wall_s)
    return (benchlib.median(ftdiag_s), benchlib.median(ftdiag_cpu),
            {name: benchlib.median(times) for name, times in other_s.items()})


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--size-mb", type=int, default=1000)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--fresh", action="store_true", help="write the logs again even when present")
    parser.add_argument("--remove", action="store_true", help="delete the logs afterwards")
    args = parser.parse_args()

    ftdiag = benchlib.build_dir(args.build) / "ftdiag"
    if not os.access(ftdiag, os.X_OK):
        sys.exit(f"{ftdiag} is missing: cmake --build BUILD --target ftdiag")
    folder = Path(os.environ.get("TMPDIR", "/tmp")) / "ftdiag-bench-analyze-logs"
    size = args.size_mb * 1_000_000
    if args.fresh or not ready(folder, size):
        shutil.rmtree(folder, ignore_errors=True)
        print(f"writing {size / 1e9:.2f} GB of training console to {folder} ...", flush=True)
        generate(folder, size)
    scratch = folder / "out"
    scratch.mkdir(exist_ok=True)
    whole = folder / "one" / "console.log"
    total = whole.stat().st_size
    print(f"log: {total} bytes, {benchlib.filesystem_of(folder)}; baselines count lines matching "
          f"'{BASELINE_PATTERN}'; median of {args.reps} interleaved rounds, page cache warm", flush=True)
    if not shutil.which("rg"):
        print("ripgrep is not installed (apt-get install ripgrep): its column is left out", flush=True)
    try:
        for name, target, files in (("one file", whole.parent, [whole]),
                                    (f"{RANKS} ranks", folder / "ranks", sorted((folder / "ranks").glob("rank*.log")))):
            f_s, f_cpu, others = time_all(ftdiag, target, files, scratch, args.reps)
            print(f"{name}: ftdiag {f_s:.3f} s wall ({total / f_s / 1e9:.2f} GB/s), {f_cpu:.2f} s CPU", flush=True)
            for other, o_s in others.items():
                print(f"  {other:<9} {o_s:.3f} s ({total / o_s / 1e9:.2f} GB/s)   ftdiag / {other}: {f_s / o_s:.2f}", flush=True)
            goals = [f"{total / f_s / 1e9:.2f} GB/s (goal 2 GB/s or more)"]
            if "rg -c" in others:
                goals.append(f"{f_s / others['rg -c']:.2f}x rg -c (goal 2 or less)")
            goals.append(f"{f_s / others['grep -cE']:.2f}x grep -cE (goal below 1)")
            print("  goals: " + "; ".join(goals), flush=True)
            benchlib.result(f"analyze_logs_{name.replace(' ', '_')}", bytes=total, ftdiag_s=f_s, ftdiag_cpu_s=f_cpu,
                            gb_per_s=total / f_s / 1e9,
                            **{other.split()[0] + "_s": o_s for other, o_s in others.items()},
                            **{"ratio_" + other.split()[0]: f_s / o_s for other, o_s in others.items()})
    finally:
        if args.remove:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
