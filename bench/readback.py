#!/usr/bin/env python3
"""What reading a long run's record back costs: the summary `ftdiag run`
prints when the job ends (without --quiet) and `ftdiag analyze` read the
whole journal, whose size grows with the run's length (one sample line every
0.5 s, each listing every live process).

A short real run of a P-process job gives a journal; its last sample line is
repeated with advancing times to stand for --hours of supervision. Then
`ftdiag analyze RUN_DIR` runs under `bench_job maxrss` for its wall time and
whole-life peak RSS, against `cat journal.jsonl > /dev/null` as the baseline
(the bare cost of reading the bytes), run in the same loop.
"""

import argparse
import re
import sys
from pathlib import Path

import benchlib as b

TIME = re.compile(r'"time":([0-9.]+)')


def real_journal(ftdiag, job, jobdir, processes):
    r = b.spawn_and_wait([ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--",
                          job, "tree", processes, 0, 0, "sleep:2"])
    b.check_ok(r, "the short run")
    run_dir = next(jobdir.run_dir().iterdir())
    return run_dir, (run_dir / "journal.jsonl").read_text().splitlines()


def synthesize(lines, samples, interval, out):
    """Writes lines with `samples` copies of the fullest sample inserted after the last sample
    line of the short run. The fullest lists the most processes; of those, the shortest, which
    reads live processes (a zombie's fields are absent, each with its reason spelled out)."""
    sample_lines = [i for i, l in enumerate(lines) if '"type":"sample"' in l]
    last_sample = sample_lines[-1]
    template = lines[max(sample_lines, key=lambda i: (lines[i].count('"pid":'), -len(lines[i])))]
    t0 = float(TIME.search(lines[last_sample]).group(1))
    head = [l for i, l in enumerate(lines) if i <= last_sample]
    tail = [l for i, l in enumerate(lines) if i > last_sample]
    before, after = TIME.split(template, maxsplit=1)[0], TIME.split(template, maxsplit=1)[2]
    shift = samples * interval
    with open(out, "w") as f:
        for l in head:
            f.write(l + "\n")
        for i in range(1, samples + 1):
            f.write(f'{before}"time":{t0 + i * interval:.6f}{after}\n')
        for l in tail:
            f.write(TIME.sub(lambda m: f'"time":{float(m.group(1)) + shift:.6f}', l) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--reps", type=int, default=3, help="analyze/cat pairs per case (median)")
    parser.add_argument("--case", action="append", metavar="PROCESSES:HOURS",
                        help="job size and run length to stand for (default 1:1 1:24 100:1)")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    cases = [tuple(float(x) for x in c.split(":")) for c in (args.case or ["1:1", "1:24", "100:1"])]
    jobdir = b.JobDir()
    print(f"readback: `ftdiag analyze RUN_DIR` on synthetic long-run journals (0.5 s samples), "
          f"{args.reps} pairs with `cat` as baseline")
    try:
        for processes, hours in cases:
            processes = int(processes)
            run_dir, lines = real_journal(ftdiag, job, jobdir, processes)
            samples = int(hours * 3600 / 0.5)
            journal = run_dir / "journal.jsonl"
            synthesize(lines, samples, 0.5, journal)
            size = journal.stat().st_size
            rss_file = jobdir.path / "maxrss.txt"
            analyze, cat, rss = [], [], []
            for _ in range(args.reps):
                c = b.spawn_and_wait(["/bin/cat", journal])
                cat.append(c.wall_s)
                a = b.spawn_and_wait([job, "maxrss", rss_file, ftdiag, "analyze", run_dir])
                b.check_ok(a, "ftdiag analyze")
                analyze.append(a.wall_s)
                rss.append(int(rss_file.read_text()) / 1024)
            ma, mc, mr = b.median(analyze), b.median(cat), b.median(rss)
            print(f"  {processes} process(es), {hours:g} h = {samples} samples, journal {size / 1e6:.0f} MB: "
                  f"analyze {b.fmt_s(ma)} ({size / ma / 1e6:.0f} MB/s), cat {b.fmt_s(mc)} (ratio {ma / mc:.0f}); "
                  f"peak RSS {mr:.1f} MiB")
            b.result(f"readback_{processes}p_{hours:g}h", journal_MB=size / 1e6, analyze_s=ma,
                     analyze_MBps=size / ma / 1e6, ratio_vs_cat=ma / mc, peak_rss_MiB=mr)
            jobdir.clear()
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
