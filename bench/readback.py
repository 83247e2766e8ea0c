#!/usr/bin/env python3
"""What reading a long run's record back costs: the summary `ftdiag run`
prints when the job ends (without --quiet) and `ftdiag analyze` read the
whole journal, whose size grows with the run's length: one sample line every
0.5 s, which lists a process when it is new, when its RSS moved by more than
1 MiB or 2 %, and at least every 20th sample.

A short real run of a P-process sleeping job (at a 0.1 s interval, so that it
holds a few refresh cycles) gives a journal, which is stretched to stand for
--hours of supervision at 0.5 s:
  idle  (default) its steady cycle of 20 sample lines (each process listed
        once, in its refresh) is repeated: a tree whose memory stands still;
  busy  one sample line listing every process (the readings of that cycle)
        is repeated: a tree whose memory moves at every tick (the journal's
        upper bound).
Then `ftdiag analyze RUN_DIR` runs under `bench_job maxrss` for its wall time
and whole-life peak RSS, against two baselines run in the same loop:
`cat journal.jsonl > /dev/null` (the bare cost of reading the bytes) and
`wc -l journal.jsonl` (reading them and finding the line ends: the figure the
project's target for analyze is quoted against).
"""

import argparse
import json
import re
import shutil
import sys
from pathlib import Path

import benchlib as b

TIME = re.compile(r'"time":([0-9.]+)')
INTERVAL = re.compile(r'"sample_interval_s":[0-9.e+-]+')
CYCLE = 20  # MemorySampler::kRefreshTicks


def real_journal(ftdiag, job, jobdir, processes):
    r = b.spawn_and_wait([ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--interval", "0.1", "--",
                          job, "tree", processes, 0, 0, "sleep:6"])
    b.check_ok(r, "the short run")
    run_dir = next(jobdir.run_dir().iterdir())
    return run_dir, (run_dir / "journal.jsonl").read_text().splitlines()


def time_of(line):
    return float(TIME.search(line).group(1))


def with_time(line, t):
    before, _, after = TIME.split(line, maxsplit=1)
    return f'{before}"time":{t:.6f}{after}'


def pids_in(line):
    return re.findall(r'"pid":([0-9]+)', line)


def cycle_of(lines, kind):
    """(index of the last line of the template, the sample lines to repeat in turn)."""
    sample_lines = [i for i, l in enumerate(lines) if '"type":"sample"' in l]
    start = time_of(lines[0]) + 3.0  # the tree is complete and every process in its refresh cycle
    steady = [i for i in sample_lines if time_of(lines[i]) >= start]
    if len(steady) < CYCLE:
        sys.exit(f"readback: the short run gave {len(steady)} steady samples, fewer than {CYCLE}")
    cycle = steady[:CYCLE]
    listed = [pid for i in cycle for pid in pids_in(lines[i])]
    if len(listed) != len(set(listed)) or set(listed) != {p for i in sample_lines for p in pids_in(lines[i])}:
        print(f"  (note: the steady cycle lists {len(listed)} readings of {len(set(listed))} processes)")
    if kind == "busy":
        # One line listing every process of the cycle: what each tick writes when every RSS moves.
        full = json.loads(lines[cycle[-1]])
        full["processes"] = sorted((p for i in cycle for p in json.loads(lines[i])["processes"]),
                                   key=lambda p: p["pid"])
        return cycle[-1], [json.dumps(full, separators=(",", ":"), ensure_ascii=False)]
    return cycle[-1], [lines[i] for i in cycle]


def synthesize(lines, kind, samples, interval, out):
    """Writes the short run's journal with `samples` more sample lines after its template (0.5 s apart),
    and the rest of it (the deaths and the end) moved later by as much."""
    last, cycle = cycle_of(lines, kind)
    t0 = time_of(lines[last])
    shift = samples * interval
    with open(out, "w") as f:
        for i, l in enumerate(lines[:last + 1]):
            f.write((INTERVAL.sub(f'"sample_interval_s":{interval}', l) if i == 0 else l) + "\n")
        for i in range(1, samples + 1):
            f.write(with_time(cycle[(i - 1) % len(cycle)], t0 + i * interval) + "\n")
        for l in lines[last + 1:]:
            f.write(TIME.sub(lambda m: f'"time":{float(m.group(1)) + shift:.6f}', l) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--reps", type=int, default=3, help="rounds of analyze, cat and wc -l per case (median)")
    parser.add_argument("--case", action="append", metavar="PROCESSES:HOURS[:idle|busy]",
                        help="job size, run length and memory activity to stand for (default idle; "
                             "default cases 1:3 1:24 100:3 100:24 100:3:busy)")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    cases = []
    for c in args.case or ["1:3", "1:24", "100:3", "100:24", "100:3:busy"]:
        parts = c.split(":")
        kind = parts[2] if len(parts) > 2 else "idle"
        if len(parts) not in (2, 3) or kind not in ("idle", "busy"):
            parser.error(f"--case {c}: expected PROCESSES:HOURS[:idle|busy]")
        cases.append((int(parts[0]), float(parts[1]), kind))
    jobdir = b.JobDir()
    print(f"readback: `ftdiag analyze RUN_DIR` on synthetic long-run journals (0.5 s samples), "
          f"{args.reps} rounds with `cat` and `wc -l` as baselines")
    try:
        for processes, hours, kind in cases:
            run_dir, lines = real_journal(ftdiag, job, jobdir, processes)
            samples = int(hours * 3600 / 0.5)
            journal = run_dir / "journal.jsonl"
            synthesize(lines, kind, samples, 0.5, journal)
            size = journal.stat().st_size
            rss_file = jobdir.path / "maxrss.txt"
            analyze, cat, wc, rss = [], [], [], []
            for _ in range(args.reps):
                c = b.spawn_and_wait(["/bin/cat", journal])
                cat.append(c.wall_s)
                w = b.spawn_and_wait([shutil.which("wc") or "/usr/bin/wc", "-l", journal])
                wc.append(w.wall_s)
                a = b.spawn_and_wait([job, "maxrss", rss_file, ftdiag, "analyze", run_dir])
                b.check_ok(a, "ftdiag analyze")
                analyze.append(a.wall_s)
                rss.append(int(rss_file.read_text()) / 1024)
            ma, mc, mw, mr = b.median(analyze), b.median(cat), b.median(wc), b.median(rss)
            print(f"  {processes} process(es), {kind}, {hours:g} h = {samples} samples, journal {size / 1e6:.1f} MB: "
                  f"analyze {b.fmt_s(ma)} ({size / ma / 1e6:.0f} MB/s), cat {b.fmt_s(mc)} (ratio {ma / mc:.0f}), "
                  f"wc -l {b.fmt_s(mw)} ({size / mw / 1e6:.0f} MB/s, ratio {ma / mw:.1f}); peak RSS {mr:.1f} MiB")
            b.result(f"readback_{processes}p_{hours:g}h_{kind}", journal_MB=size / 1e6, analyze_s=ma,
                     analyze_MBps=size / ma / 1e6, ratio_vs_cat=ma / mc, wc_MBps=size / mw / 1e6,
                     ratio_vs_wc=ma / mw, peak_rss_MiB=mr)
            jobdir.clear()
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
