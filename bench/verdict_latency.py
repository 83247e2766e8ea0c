#!/usr/bin/env python3
"""How soon after the job's end the verdict is on screen, for journals of
growing size: `ftdiag run` builds its run live, from the records as it
journals them (docs/evidence.md, "Live and post-mortem give the same
evidence"), so the summary and verdict it prints when the job ends should not
depend on how long the journal is. Target: <= 1 s after the job's end.

The job (`python3 -c SCRIPT K T FILE`) forks K children (--children, default
50) whose RSS moves all the time (each steps through 0 to 1 MiB of touched
anonymous memory in 256 KiB steps every 20 ms, then drops it with
MADV_DONTNEED; 256 KiB is over 2 % of a Python child's RSS), so that every
sample at --interval 0.02 lists them all (when the machine gives them the CPU
to move: "listed" says how many a sample listed on average) and the journal
grows fast. After T seconds the children exit, the parent reaps
them and, as its very last act, writes time.time() to FILE and calls
os._exit(0).

`ftdiag run --job-dir D --interval 0.02 -- python3 -c SCRIPT ...` runs
without --quiet, its stderr read through a pipe: the moment the line
"ftdiag verdict:" arrives is taken with time.time() (the same wall clock as
the job's and the journal's). Reported per run:
  latency   verdict line - the job's last timestamp
  to-death  the job's death in the journal (waitpid) - the last timestamp
  to-end    the end record - the last timestamp (drain, last sample, syncs)
  exit      ftdiag's exit (after wait) - the last timestamp
  analyze   what `ftdiag analyze RUN_DIR` of the same folder takes (what a
            summary read back from the journal would cost), with its peak RSS.
Baselines, in the same script: the same job with K=0 and T=0 (a tiny job with
a last timestamp), and `/bin/true`, whose latency is taken from its death in
the journal (there is no last timestamp). Durations: --durations (5 20 60).
One more tiny job (--leftover S) starts `sleep S` in the background and then
execs the K=0 job: a process left behind that still holds the job's output
(a forgotten helper, a slow-to-die worker), whose wait shows in the latency.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import benchlib as b

TARGET_S = 1.0

JOB = r"""
import mmap, os, sys, time
k, duration, out = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
PAGE, CHUNK, LEVELS, STEP_S = 4096, 256 * 1024, 4, 0.020
deadline = time.time() + duration
children = []
for _ in range(k):
    pid = os.fork()
    if pid == 0:
        m = mmap.mmap(-1, LEVELS * CHUNK)
        level = 0
        while time.time() < deadline:
            level = (level + 1) % (LEVELS + 1)
            if level == 0:
                m.madvise(mmap.MADV_DONTNEED)
            else:
                for off in range((level - 1) * CHUNK, level * CHUNK, PAGE):
                    m[off] = 1
            time.sleep(STEP_S)
        os._exit(0)
    children.append(pid)
for pid in children:
    os.waitpid(pid, 0)
with open(out, "w") as f:
    f.write(repr(time.time()))
os._exit(0)
"""

VERDICT = b"ftdiag verdict:"


def run_ftdiag(ftdiag, job_dir, interval, argv):
    """Runs ftdiag (not --quiet), reading its stderr; returns (t_start, t_first_stderr, t_verdict, t_exit, status, text)."""
    cmd = [str(ftdiag), "run", "--job-dir", str(job_dir), "--interval", str(interval), "--", *map(str, argv)]
    t_start = time.time()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    fd = p.stderr.fileno()
    data = b""
    t_first = t_verdict = None
    while True:
        chunk = os.read(fd, 65536)
        now = time.time()
        if not chunk:
            break
        if t_first is None:
            t_first = now
        data += chunk
        if t_verdict is None and VERDICT in data:
            t_verdict = now
    status = p.wait()
    t_exit = time.time()
    p.stderr.close()
    return t_start, t_first, t_verdict, t_exit, status, data.decode(errors="replace")


def journal_facts(run_dir):
    """(size, job death time (waitpid), end time, samples, mean processes listed per sample)."""
    journal = run_dir / "journal.jsonl"
    size = journal.stat().st_size
    job_pid = death = end = None
    samples = listed = 0
    with open(journal) as f:
        for line in f:
            if '"type":"sample"' in line:
                samples += 1
                listed += line.count('"rss_bytes"')
                continue
            rec = json.loads(line)
            if rec["type"] == "run":
                job_pid = rec.get("job_pid")
            elif rec["type"] == "death" and rec["pid"] == job_pid and "waitpid" in rec["witnesses"]:
                death = rec["time"]
            elif rec["type"] == "end":
                end = rec["time"]
    return size, death, end, samples, listed / max(samples, 1)


def analyze_cost(ftdiag, job, scratch, run_dir, reps):
    rss_file = scratch / "maxrss.txt"
    walls, rss, cpu = [], [], []
    for _ in range(reps):
        r = b.spawn_and_wait([job, "maxrss", rss_file, ftdiag, "analyze", run_dir])
        b.check_ok(r, "ftdiag analyze")
        walls.append(r.wall_s)
        cpu.append(r.total_cpu_s)
        rss.append(int(rss_file.read_text()) / 1024)
    return b.median(walls), b.median(rss), b.median(cpu)


def one_run(ftdiag, job, scratch, interval, argv, stamp_file, analyze_reps):
    job_dir = scratch / "jobs"
    if stamp_file:
        stamp_file.unlink(missing_ok=True)
    t_start, t_first, t_verdict, t_exit, status, text = run_ftdiag(ftdiag, job_dir, interval, argv)
    if status != 0 or t_verdict is None:
        sys.exit(f"verdict_latency: ftdiag run exited {status}, verdict line {'seen' if t_verdict else 'missing'}:\n{text}")
    run_dir = next(job_dir.iterdir())
    size, death, end, samples, listed = journal_facts(run_dir)
    last = float(stamp_file.read_text()) if stamp_file else death
    row = {
        "size": size, "samples": samples, "listed": listed,
        "latency": t_verdict - last, "summary": t_first - last, "to_death": death - last,
        "to_end": end - last, "exit": t_exit - last, "verdict_after_end": t_verdict - end,
        "wall": t_exit - t_start,
        "verdict": next((l for l in text.splitlines() if l.startswith("ftdiag verdict:")), ""),
    }
    if analyze_reps:
        row["analyze_s"], row["analyze_rss"], row["analyze_cpu"] = analyze_cost(ftdiag, job, scratch, run_dir, analyze_reps)
    shutil.rmtree(job_dir)
    return row


def median_row(rows):
    out = {}
    for key, value in rows[0].items():
        out[key] = b.median([r[key] for r in rows]) if isinstance(value, (int, float)) else value
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--durations", type=float, nargs="+", default=[5, 20, 60], help="job lengths, seconds")
    parser.add_argument("--children", type=int, default=50, help="busy children of the job (default 50)")
    parser.add_argument("--interval", type=float, default=0.02, help="ftdiag's --interval (default 0.02)")
    parser.add_argument("--reps", type=int, default=3, help="runs of each baseline (median; default 3)")
    parser.add_argument("--leftover", type=float, default=3.0,
                        help="also a tiny job that leaves `sleep S` running, holding its output (0: skip; default 3)")
    parser.add_argument("--analyze-reps", type=int, default=1, help="`ftdiag analyze` runs per folder (default 1)")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    scratch = Path(tempfile.mkdtemp(prefix="ftdiag-bench-latency-"))
    stamp = scratch / "last.txt"
    py = sys.executable
    print(f"verdict_latency: from the job's last act to `ftdiag verdict:` on stderr, --interval {args.interval}, "
          f"{args.children} busy children; target <= {TARGET_S:g} s")
    rows = []
    try:
        base_true = median_row([one_run(ftdiag, job, scratch, args.interval, ["/bin/true"], None, 0)
                                for _ in range(args.reps)])
        base_py = median_row([one_run(ftdiag, job, scratch, args.interval, [py, "-c", JOB, 0, 0, stamp], stamp, 0)
                              for _ in range(args.reps)])
        rows.append(("/bin/true (from its death)", base_true))
        rows.append(("python, 0 children, 0 s", base_py))
        if args.leftover:
            script = f"sleep {args.leftover:g} & exec {py} -c \"$0\" 0 0 \"$1\""
            left = one_run(ftdiag, job, scratch, args.interval, ["/bin/sh", "-c", script, JOB, stamp], stamp, 0)
            rows.append((f"python, leaves `sleep {args.leftover:g}` behind", left))
            b.result("verdict_latency_leftover", latency_s=left["latency"], to_end_s=left["to_end"],
                     latency_minus_baseline_s=left["latency"] - base_py["latency"],
                     within_target="yes" if left["latency"] <= TARGET_S else "no")
        for duration in args.durations:
            r = one_run(ftdiag, job, scratch, args.interval, [py, "-c", JOB, args.children, duration, stamp], stamp,
                        args.analyze_reps)
            rows.append((f"python, {args.children} children, {duration:g} s", r))
            b.result(f"verdict_latency_{duration:g}s", journal_MB=r["size"] / 1e6, samples=r["samples"],
                     listed_per_sample=r["listed"], latency_s=r["latency"], to_death_s=r["to_death"],
                     to_end_s=r["to_end"], verdict_after_end_s=r["verdict_after_end"], exit_s=r["exit"],
                     latency_minus_baseline_s=r["latency"] - base_py["latency"],
                     latency_ratio_vs_baseline=r["latency"] / base_py["latency"],
                     analyze_s=r["analyze_s"], analyze_cpu_s=r["analyze_cpu"], analyze_rss_MiB=r["analyze_rss"],
                     analyze_vs_latency=r["analyze_s"] / r["latency"],
                     within_target="yes" if r["latency"] <= TARGET_S else "no")
        b.result("verdict_latency_baseline", true_latency_s=base_true["latency"], true_wall_s=base_true["wall"],
                 python_latency_s=base_py["latency"], python_to_end_s=base_py["to_end"])
        print(f"  {'job':34} {'journal':>9} {'samples':>7} {'listed':>6} {'to death':>9} {'to end':>8} "
              f"{'summary':>8} {'VERDICT':>8} {'exit':>8} {'analyze':>8} {'its CPU':>8} {'its RSS':>9}")
        for name, r in rows:
            analyze = f"{r['analyze_s']:7.3f}s {r['analyze_cpu']:7.3f}s" if "analyze_s" in r else f"{'-':>8} {'-':>8}"
            rss = f"{r['analyze_rss']:5.1f} MiB" if "analyze_rss" in r else f"{'-':>9}"
            print(f"  {name:34} {r['size'] / 1e6:6.2f} MB {r['samples']:7.0f} {r['listed']:6.1f} "
                  f"{r['to_death']:8.3f}s {r['to_end']:7.3f}s {r['summary']:7.3f}s {r['latency']:7.3f}s "
                  f"{r['exit']:7.3f}s {analyze} {rss}")
        print("  (times after the job's last timestamp; /bin/true: after its death in the journal; baselines are "
              f"medians of {args.reps})")
        for name, r in rows:
            if r["latency"] > TARGET_S:
                print(f"  << {name}: verdict {r['latency']:.3f} s after the job's end, over {TARGET_S:g} s")
        print(f"  verdict: {rows[-1][1]['verdict']}")
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
