#!/usr/bin/env python3
"""`ftdiag analyze` of a job directory of many ranks on many nodes: time and
peak memory against the same analyze of one rank's folder, in the same run.

Goal (docs/performance.md): at most 1 s per 16 ranks, memory bounded.

The records are real: two `ftdiag run`s around a real Python job each (a
training-like loop whose memory grows, --seconds long, sampled every
--interval so the journals are as long as hours of a real job at 0.5 s are
dense), one ended by SIGTERM (a rank torn down), one by SIGKILL (the first
failure). They are then laid out as --nodes x --ranks-per-node run folders,
each a copy of one of the two with its node, rank, pids and times rewritten
(one rank of the last node is the SIGKILLed one, 0.5 s before the others'
ends), as `srun ftdiag run --job-dir` writes them. The verdict must name that
rank of that node as the first failure.

  bench/analyze_ranks.py [--build DIR] [--nodes 8] [--ranks-per-node 8] [--seconds 20] [--interval 0.05] [--reps 3]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib as b

GOAL_S_PER_16_RANKS = 1.0

JOB = r"""
import os, sys, time
kept = []
end = time.time() + float(sys.argv[1])
while time.time() < end:
    kept.append(bytearray(256 << 10))   # 256 KiB a step, touched
    for i in range(0, len(kept[-1]), 4096): kept[-1][i] = 1
    print(f"{{'loss': 1.0, 'step': {len(kept)}}}", flush=True)
    time.sleep(0.05)
time.sleep(3600)   # until signalled
"""

PID_KEYS = {"pid", "ppid", "job_pid", "supervisor_pid", "target_pid", "sender_pid"}


def record_template(ftdiag, folder, rank, seconds, interval, sig):
    """One real run: `ftdiag run` around the job, ended by `sig` after `seconds`."""
    env = dict(os.environ, RANK=str(rank), SLURMD_NODENAME="template", SLURM_JOB_ID="4242", SLURM_STEP_ID="0",
               SLURM_PROCID=str(rank), SLURM_NNODES="1")
    proc = subprocess.Popen([str(ftdiag), "run", "-q", "--interval", str(interval), "--job-dir", str(folder), "--",
                             sys.executable, "-c", JOB, str(seconds)], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    time.sleep(seconds + 1)
    # The job is ftdiag's child: signal it, as a launcher or the OOM killer would.
    children = Path(f"/proc/{proc.pid}/task/{proc.pid}/children").read_text().split()
    job = [int(c) for c in children if "python" in Path(f"/proc/{c}/comm").read_text()]
    os.kill(job[0], sig)
    proc.wait(timeout=60)
    runs = list(Path(folder).iterdir())
    assert len(runs) == 1, runs
    return runs[0]


def rewrite(value, pid_offset, time_shift, node, rank):
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if key in PID_KEYS and isinstance(item, int) and item > 1:
                out[key] = item + pid_offset
            elif key in ("time", "last_heartbeat") and isinstance(item, (int, float)):
                out[key] = item + time_shift
            elif key == "environment" and isinstance(item, dict) and "RANK" in item:
                out[key] = dict(item, RANK=str(rank), SLURM_PROCID=str(rank))
            else:
                out[key] = rewrite(item, pid_offset, time_shift, node, rank)
        if value.get("type") == "run":
            out["node"] = node
            out["rank"] = rank
            out["placement"] = dict(value.get("placement", {}), SLURMD_NODENAME=node, RANK=str(rank), SLURM_PROCID=str(rank))
        return out
    if isinstance(value, list):
        return [rewrite(item, pid_offset, time_shift, node, rank) for item in value]
    return value


def lay_out(template_torn_down, template_killed, job_dir, nodes, per_node):
    """nodes x per_node run folders; rank 1 of the last node is the first failure."""
    base_time = None
    for node_index in range(nodes):
        for local in range(per_node):
            rank = node_index * per_node + local
            node = f"gpu-node-{node_index + 1:02d}"
            killed = node_index == nodes - 1 and local == 1
            template = template_killed if killed else template_torn_down
            folder = job_dir / f"{node}-rank{rank}"
            folder.mkdir(parents=True)
            lines = (template / "journal.jsonl").read_text().splitlines()
            records = [json.loads(line) for line in lines if line.strip()]
            start = records[0]["time"]
            if base_time is None:
                base_time = start
            end = records[-1]["time"]
            # Every run starts with the step; the killed rank ends 0.5 s before the others.
            shift = base_time - start + (0 if not killed else 0)
            if not killed:
                shift += 0.5 + (template_killed_end_offset - (end - start))
            out = [json.dumps(rewrite(r, 100000 * (rank + 1), shift, node, rank), sort_keys=True) for r in records]
            (folder / "journal.jsonl").write_text("\n".join(out) + "\n")
            console = []
            for line in (template / "console.log").read_text().splitlines():
                stamp, _, rest = line.partition(" ")
                try:
                    console.append(f"{float(stamp) + shift:.6f} {rest}")
                except ValueError:
                    console.append(line)
            (folder / "console.log").write_text("\n".join(console) + "\n")
            os.chmod(folder, 0o700)


def analyze(ftdiag, path, reps):
    """Median wall time, peak RSS (GNU time's %M of each run) and the last report."""
    walls, peak = [], 0
    report = None
    for _ in range(reps):
        with tempfile.NamedTemporaryFile("r") as measured:
            started = time.perf_counter()
            out = subprocess.run(["/usr/bin/time", "-f", "%M", "-o", measured.name, str(ftdiag), "analyze", str(path),
                                  "--format", "json", "--no-host-logs"], capture_output=True, text=True)
            walls.append(time.perf_counter() - started)
            peak = max(peak, int(measured.read().strip().splitlines()[-1]))
        report = json.loads(out.stdout)
    return b.median(walls), peak * 1024, report


def main():
    global template_killed_end_offset
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build")
    parser.add_argument("--nodes", type=int, default=8)
    parser.add_argument("--ranks-per-node", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--interval", type=float, default=0.05)
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    ftdiag, _ = b.binaries(b.build_dir(args.build))
    with tempfile.TemporaryDirectory(prefix="ftdiag-bench-ranks-") as tmp:
        tmp = Path(tmp)
        torn = record_template(ftdiag, tmp / "t0", 0, args.seconds, args.interval, signal.SIGTERM)
        killed = record_template(ftdiag, tmp / "t1", 1, args.seconds, args.interval, signal.SIGKILL)
        killed_records = [json.loads(l) for l in (killed / "journal.jsonl").read_text().splitlines() if l.strip()]
        template_killed_end_offset = killed_records[-1]["time"] - killed_records[0]["time"]
        job = tmp / "job"
        lay_out(torn, killed, job, args.nodes, args.ranks_per_node)
        ranks = args.nodes * args.ranks_per_node
        size = sum(f.stat().st_size for f in job.rglob("*") if f.is_file())
        one_wall, one_rss, _ = analyze(ftdiag, job / f"gpu-node-01-rank0", args.reps)
        wall, rss, report = analyze(ftdiag, job, args.reps)
        started = time.perf_counter()
        subprocess.run(["cat"] + [str(f) for f in sorted(job.rglob("*")) if f.is_file()], stdout=subprocess.DEVNULL, check=True)
        cat_wall = time.perf_counter() - started
        first = report["ranks"]["runs"][report["ranks"]["first"]]
        right = first["node"] == f"gpu-node-{args.nodes:02d}" and first["rank"] == (args.nodes - 1) * args.ranks_per_node + 1
        per16 = wall / ranks * 16
        print(f"{ranks} ranks on {args.nodes} nodes, {size / 1e6:.1f} MB of records "
              f"({len(killed_records)} records in a rank's journal)")
        print(f"  analyze of the job      {b.fmt_s(wall)}  peak RSS {rss / 2**20:.1f} MiB  ({per16:.3f} s per 16 ranks; goal <= {GOAL_S_PER_16_RANKS} s)")
        print(f"  analyze of one rank     {b.fmt_s(one_wall)}  peak RSS {one_rss / 2**20:.1f} MiB")
        print(f"  cat of the same bytes   {b.fmt_s(cat_wall)}")
        print(f"  first failure named: {first['node']} rank {first['rank']} ({'right' if right else 'WRONG'}); verdict {report['verdict']['cause']}")
        b.result("analyze_ranks", ranks=ranks, wall_s=wall, per_16_ranks_s=per16, vs_one_rank=wall / one_wall,
                 peak_rss_mib=rss / 2**20, right=int(right))
        return 0 if right else 1


template_killed_end_offset = 0.0

if __name__ == "__main__":
    sys.exit(main())
