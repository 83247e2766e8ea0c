#!/usr/bin/env python3
"""How fast a run's journal grows, for trees whose memory stands still and
for trees whose memory moves all the time.

The sampler writes one sample line per tick (0.5 s by default). A process's
reading is in it when the process is new, when its RSS moved by more than
1 MiB or 2 % since its last recorded reading, and at least every 20th tick;
so an idle tree costs a small line most ticks, and a busy one lists every
process every tick.

Cases, each a real run of --seconds under `ftdiag run --quiet` (default interval):
  idle  `bench_job tree P 0 0 sleep:S`: P sleeping processes, RSS constant
  busy  `bench_job breathe P S`: P processes whose RSS moves by 1.5 MiB
        between two samples 0.5 s apart

The growth is the bytes of every journal line timed inside a steady window
(from 3 s after the start, --window seconds long, a multiple of 20 ticks),
per hour.
"""

import argparse
import json
import sys

import benchlib as b


def measure(ftdiag, job, jobdir, kind, processes, seconds, window):
    if kind == "idle":
        job_argv = [job, "tree", processes, 0, 0, f"sleep:{seconds}"]
    else:
        job_argv = [job, "breathe", processes, seconds]
    r = b.spawn_and_wait([ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--", *job_argv])
    b.check_ok(r, f"{kind} run of {processes} process(es)")
    journal = next(jobdir.run_dir().glob("*/journal.jsonl"))
    raw = journal.read_bytes().splitlines(keepends=True)
    total = sum(len(l) for l in raw)
    records = [(json.loads(l), len(l)) for l in raw]
    start = next(rec["time"] for rec, _ in records if rec.get("type") == "run")
    lo, hi = start + 3.0, start + 3.0 + window
    inside = [(rec, n) for rec, n in records if isinstance(rec.get("time"), (int, float)) and lo <= rec["time"] < hi]
    samples = [(rec, n) for rec, n in inside if rec.get("type") == "sample"]
    window_bytes = sum(n for _, n in inside)
    listed = sum(len(rec.get("processes", [])) for rec, _ in samples)
    jobdir.clear()
    return {"bytes_per_hour": window_bytes / window * 3600, "samples": len(samples),
            "listed_per_sample": listed / max(1, len(samples)),
            "sample_bytes_min": min((n for _, n in samples), default=0),
            "sample_bytes_max": max((n for _, n in samples), default=0),
            "journal_bytes": total, "other_lines": len(inside) - len(samples)}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--seconds", type=int, default=25, help="length of each run (at least --window + 4)")
    parser.add_argument("--window", type=float, default=20.0, help="seconds of steady state measured "
                        "(a multiple of 10 s: 20 ticks, the refresh period)")
    parser.add_argument("--processes", type=int, action="append",
                        help="tree sizes (repeatable; default 1 and 100)")
    parser.add_argument("--kind", choices=["idle", "busy"], action="append", help="default both")
    args = parser.parse_args()
    if args.seconds < args.window + 4:
        parser.error("--seconds must be at least --window + 4")
    ftdiag, job = b.binaries(b.build_dir(args.build))
    jobdir = b.JobDir()
    print(f"journal_growth: {args.seconds} s runs at the default 0.5 s interval; growth over a {args.window:g} s "
          f"steady window, per hour")
    try:
        for kind in args.kind or ["idle", "busy"]:
            for processes in args.processes or [1, 100]:
                m = measure(ftdiag, job, jobdir, kind, processes, args.seconds, args.window)
                per_tick = m["bytes_per_hour"] / 7200
                print(f"  {kind} {processes:4d} process(es): {m['bytes_per_hour'] / 1e6:7.2f} MB/h "
                      f"({m['bytes_per_hour'] * 24 / 1e9:.2f} GB/day); {m['samples']} samples in the window, "
                      f"{m['listed_per_sample']:.1f} processes listed per sample, sample lines "
                      f"{m['sample_bytes_min']} to {m['sample_bytes_max']} B, {per_tick:.0f} B per tick "
                      f"({per_tick / processes:.0f} B per process per tick); whole journal {m['journal_bytes'] / 1e3:.0f} kB")
                b.result(f"journal_{kind}_{processes}p", MB_per_hour=m["bytes_per_hour"] / 1e6,
                         listed_per_sample=m["listed_per_sample"], bytes_per_tick=per_tick,
                         bytes_per_process_tick=per_tick / processes)
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
