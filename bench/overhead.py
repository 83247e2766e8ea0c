#!/usr/bin/env python3
"""What supervising a job with `ftdiag run` costs the job, as ratios.

Every comparison runs the same job bare and under
`ftdiag run --job-dir TMP --quiet --` (default 0.5 s interval), interleaved
bare, wrapped, bare, wrapped, ... so that the machine's noise falls on both
alike, and reports medians and the ratio wrapped / bare.

  startup  a job that exits at once: ftdiag's fixed start and stop cost, with
           --quiet and without it (the summary and the rules' verdict that
           `ftdiag run` prints at the end, to /dev/null here)
  cpu      a CPU-bound job of about --cpu-seconds: wall-time ratio (target
           <= 1.005), ftdiag's own CPU, the job's CPU bare vs wrapped
  idle     sleeping jobs (1 and 100 processes), with and without netlink:
           ftdiag's own CPU per second of steady supervision
  churn    a job that forks --children short-lived children one after the
           other: what each process death costs
  foreign  an unrelated process forking --foreign children while ftdiag
           supervises a waiting job: the cost of the host's process events
  output   a job printing --lines lines: throughput to a file bare vs through
           ftdiag's relay (which also writes the timestamped console.log)

The job runs under `bench_job rusage` (bare and wrapped alike), which reports
its CPU time; ftdiag's own CPU, all its threads, is wait4's total for ftdiag
minus the job's and that wrapper's. While ftdiag runs (idle, foreign), its CPU
is the sum of /proc/PID/task/*/schedstat.
"""

import argparse
import os
import sys
import time

import benchlib as b


def wrapped(ftdiag, jobdir, job_argv, extra_flags=(), quiet=True):
    return [ftdiag, "run", "--job-dir", jobdir.run_dir(), *(["--quiet"] if quiet else []), *extra_flags, "--",
            *job_argv]


def interleave(pairs, job, job_argv, wrap, jobdir, stdout=None, after_wrapped=None):
    """Runs job_argv bare and as wrap(argv), alternately, both under `bench_job rusage`."""
    bare, wrap_runs = [], []
    rusage = jobdir.path / "rusage.txt"
    for i in range(pairs):
        r = b.spawn_with_rusage(job, job_argv, rusage, stdout=stdout)
        b.check_ok(r, "bare run")
        bare.append(r)
        r = b.spawn_with_rusage(job, job_argv, rusage, wrap=wrap, stdout=stdout)
        b.check_ok(r, "wrapped run")
        if after_wrapped:
            r.extra.update(after_wrapped())
        wrap_runs.append(r)
        jobdir.clear()
        print(f"    pair {i + 1}/{pairs}: bare {b.fmt_s(bare[-1].wall_s)}  wrapped {b.fmt_s(r.wall_s)}  "
              f"(ftdiag CPU {b.fmt_ms(r.ftdiag_cpu_s)})", flush=True)
    return bare, wrap_runs


def under_ftdiag(ftdiag, jobdir, extra_flags=(), quiet=True):
    return lambda argv: wrapped(ftdiag, jobdir, argv, extra_flags, quiet)


def pair_ratios(bare, wrap):
    return [w.wall_s / x.wall_s for x, w in zip(bare, wrap)]


def startup(ftdiag, job, jobdir, pairs):
    print(f"\n== startup: `bench_job sleep 0`, {pairs} rounds of bare, wrapped --quiet, wrapped with the "
          f"summary and verdict")
    argv = [job, "sleep", "0"]
    rusage = jobdir.path / "rusage.txt"
    bare, quiet, loud = [], [], []
    for i in range(pairs):
        for runs, wrap, what in ((bare, None, "bare"), (quiet, under_ftdiag(ftdiag, jobdir), "--quiet"),
                                 (loud, under_ftdiag(ftdiag, jobdir, quiet=False), "summary")):
            r = b.spawn_with_rusage(job, argv, rusage, wrap=wrap)
            b.check_ok(r, f"startup, {what}")
            runs.append(r)
            jobdir.clear()
        print(f"    round {i + 1}/{pairs}: bare {b.fmt_ms(bare[-1].wall_s)}  --quiet {b.fmt_ms(quiet[-1].wall_s)} "
              f"(ftdiag CPU {b.fmt_ms(quiet[-1].ftdiag_cpu_s)})  summary {b.fmt_ms(loud[-1].wall_s)} "
              f"(ftdiag CPU {b.fmt_ms(loud[-1].ftdiag_cpu_s)})", flush=True)
    mb = b.median([r.wall_s for r in bare])
    mq, ml = b.median([r.wall_s for r in quiet]), b.median([r.wall_s for r in loud])
    cq, cl = b.median([r.ftdiag_cpu_s for r in quiet]), b.median([r.ftdiag_cpu_s for r in loud])
    print(f"  median wall: bare {b.fmt_ms(mb)}, wrapped --quiet {b.fmt_ms(mq)}, wrapped with summary and verdict "
          f"{b.fmt_ms(ml)}")
    print(f"  fixed cost of ftdiag per run: --quiet {b.fmt_ms(mq - mb)} (its own CPU {b.fmt_ms(cq)}); "
          f"with summary and verdict {b.fmt_ms(ml - mb)} (its own CPU {b.fmt_ms(cl)})")
    b.result("startup", bare_ms=mb * 1e3, wrapped_ms=mq * 1e3, fixed_ms=(mq - mb) * 1e3, ftdiag_cpu_ms=cq * 1e3)
    b.result("startup_summary", wrapped_ms=ml * 1e3, fixed_ms=(ml - mb) * 1e3, ftdiag_cpu_ms=cl * 1e3)

    # A job that runs longer than the environment's reading (done beside it):
    # what ftdiag adds to a job that does some work before it ends.
    argv = [job, "sleep", "1"]
    bare_s, wrapped_s = [], []
    for i in range(pairs):
        for runs, wrap, what in ((bare_s, None, "bare 1 s"), (wrapped_s, under_ftdiag(ftdiag, jobdir), "--quiet 1 s")):
            r = b.spawn_with_rusage(job, argv, rusage, wrap=wrap)
            b.check_ok(r, f"startup, {what}")
            runs.append(r)
            jobdir.clear()
    m1, w1 = b.median([r.wall_s for r in bare_s]), b.median([r.wall_s for r in wrapped_s])
    print(f"  a 1 s job: bare {b.fmt_ms(m1)}, wrapped --quiet {b.fmt_ms(w1)}: ftdiag adds {b.fmt_ms(w1 - m1)} "
          f"(goal: 30 ms or less)")
    b.result("startup_1s_job", bare_ms=m1 * 1e3, wrapped_ms=w1 * 1e3, added_ms=(w1 - m1) * 1e3)
    return mq - mb


def calibrate(job, seconds):
    """Iterations of `bench_job spin` that take about `seconds` bare."""
    iterations = 50_000_000
    while True:
        r = b.spawn_and_wait([job, "spin", iterations])
        if r.wall_s > 0.5:
            return int(iterations * seconds / r.wall_s)
        iterations *= 4


def cpu_bound(ftdiag, job, jobdir, pairs, seconds, fixed_s):
    iterations = calibrate(job, seconds)
    print(f"\n== cpu: `bench_job spin {iterations}` (about {seconds} s), {pairs} pairs, interleaved")
    argv = [job, "spin", iterations]
    bare, wrap = interleave(pairs, job, argv, under_ftdiag(ftdiag, jobdir), jobdir)
    mb, mw = b.median([r.wall_s for r in bare]), b.median([r.wall_s for r in wrap])
    ratios = pair_ratios(bare, wrap)
    ratio = mw / mb
    job_bare = b.median([r.job_cpu_s for r in bare])
    job_wrapped = b.median([r.job_cpu_s for r in wrap])
    ftdiag_cpu = b.median([r.ftdiag_cpu_s for r in wrap])
    print(f"  median wall: bare {b.fmt_s(mb)}, wrapped {b.fmt_s(mw)}")
    print(f"  wall ratio wrapped/bare: {ratio:.4f} (median of per-pair ratios {b.median(ratios):.4f}, "
          f"range {min(ratios):.4f}..{max(ratios):.4f}); target <= 1.005")
    print(f"  without ftdiag's fixed start/stop cost ({b.fmt_ms(fixed_s)}): {(mw - fixed_s) / mb:.4f}")
    # A/A control: how far apart two bare runs of the same job land on this machine now.
    aa = [abs(later.wall_s / earlier.wall_s - 1) for earlier, later in zip(bare, bare[1:])]
    noise = b.median(aa)
    print(f"  noise floor (median |bare[i+1]/bare[i] - 1|): {noise:.4f}; a ratio within it is not resolved")
    print(f"  job CPU: bare {b.fmt_s(job_bare)}, wrapped {b.fmt_s(job_wrapped)} (ratio {job_wrapped / job_bare:.4f})")
    print(f"  ftdiag's own CPU: {b.fmt_ms(ftdiag_cpu)} per run = {ftdiag_cpu / mw * 100:.3f}% of one core "
          f"over the run")
    b.result("cpu", bare_s=mb, wrapped_s=mw, wall_ratio=ratio, pair_ratio_median=b.median(ratios),
             ratio_without_fixed=(mw - fixed_s) / mb, noise_floor=noise, job_cpu_ratio=job_wrapped / job_bare,
             ftdiag_cpu_ms=ftdiag_cpu * 1e3, ftdiag_core_pct=ftdiag_cpu / mw * 100)


def idle(ftdiag, job, jobdir, seconds):
    """Steady state: ftdiag's CPU between 2 s after the start and 1 s before the end."""
    window = max(1.0, seconds - 3.0)
    print(f"\n== idle: sleeping jobs of {seconds} s; ftdiag's own CPU over a {window:.0f} s window "
          f"of steady supervision (from 2 s in), and over the whole run")

    def forks():
        """Processes created on the host since boot (/proc/stat): netlink wakes ftdiag for each."""
        for line in open("/proc/stat"):
            if line.startswith("processes "):
                return int(line.split()[1])
        return 0

    def steady(pid):
        time.sleep(2.0)
        t0, c0, f0 = time.perf_counter(), b.cpu_s(pid), forks()
        time.sleep(window)
        t1, c1, f1 = time.perf_counter(), b.cpu_s(pid), forks()
        return (c1 - c0) / (t1 - t0), (f1 - f0) / (t1 - t0)

    cases = [
        ("1 process", [job, "sleep", seconds], ()),
        ("1 process, --no-netlink", [job, "sleep", seconds], ("--no-netlink",)),
        ("100 processes", [job, "tree", 100, 0, 0, f"sleep:{seconds}"], ()),
        ("100 processes, --no-netlink", [job, "tree", 100, 0, 0, f"sleep:{seconds}"], ("--no-netlink",)),
    ]
    for name, argv, flags in cases:
        r = b.spawn_and_wait(wrapped(ftdiag, jobdir, argv, flags), while_running=steady)
        b.check_ok(r, name)
        jobdir.clear()
        per_s, host_forks = r.extra["during"]
        print(f"  {name:30s} steady {per_s * 1e3:6.3f} ms/s ({per_s * 100:.3f}% of one core); whole run "
              f"{b.fmt_ms(r.self_cpu_s)} (main thread) over {b.fmt_s(r.wall_s)}; "
              f"{host_forks:.1f} new processes/s on the host meanwhile")
        key = name.replace(" processes", "p").replace(" process", "p").replace(", --no-netlink", "_nonetlink")
        b.result(f"idle_{key}", steady_ms_per_s=per_s * 1e3, core_pct=per_s * 100,
                 whole_run_cpu_ms=r.self_cpu_s * 1e3, host_forks_per_s=host_forks)


def churn(ftdiag, job, jobdir, pairs, children):
    print(f"\n== churn: `bench_job churn {children}` (short-lived children one after another), {pairs} pairs")
    argv = [job, "churn", children]
    bare, wrap = interleave(pairs, job, argv, under_ftdiag(ftdiag, jobdir), jobdir)
    mb, mw = b.median([r.wall_s for r in bare]), b.median([r.wall_s for r in wrap])
    ftdiag_cpu = b.median([r.ftdiag_cpu_s for r in wrap])
    main_thread = b.median([r.self_cpu_s for r in wrap])
    print(f"  median wall: bare {b.fmt_s(mb)}, wrapped {b.fmt_s(mw)} (ratio {mw / mb:.2f}); "
          f"{(mw - mb) / children * 1e3:.2f} ms more per child")
    print(f"  ftdiag's own CPU: {b.fmt_ms(ftdiag_cpu)} = {ftdiag_cpu / children * 1e6:.0f} us per child, of which "
          f"the event loop (main thread) {main_thread / children * 1e6:.0f} us and the journal's sync thread "
          f"{max(0.0, ftdiag_cpu - main_thread) / children * 1e6:.0f} us")
    b.result("churn", children=children, bare_s=mb, wrapped_s=mw, wall_ratio=mw / mb,
             extra_ms_per_child=(mw - mb) / children * 1e3, ftdiag_cpu_us_per_child=ftdiag_cpu / children * 1e6,
             main_thread_us_per_child=main_thread / children * 1e6)


def foreign(ftdiag, job, jobdir, children):
    """ftdiag's CPU for processes that are not its job's: the process connector
    reports every fork, exec and exit on the host, and ftdiag wakes for them."""
    print(f"\n== foreign: ftdiag supervises a waiting 1-process job while an unrelated process forks "
          f"{children} short-lived children")
    fifo = jobdir.path / "release.fifo"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)

    def during(pid):
        fd = None
        deadline = time.monotonic() + 30
        while fd is None:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        try:
            time.sleep(1.0)
            quiet = 2.0
            t0, c0 = time.perf_counter(), b.cpu_s(pid)
            time.sleep(quiet)
            t1, c1 = time.perf_counter(), b.cpu_s(pid)
            churn_run = b.spawn_and_wait([job, "churn", children])
            t2, c2 = time.perf_counter(), b.cpu_s(pid)
            return {"idle_rate": (c1 - c0) / (t1 - t0), "churn_cpu": c2 - c1, "churn_wall": t2 - t1,
                    "churn_alone_wall": churn_run.wall_s}
        finally:
            os.close(fd)

    r = b.spawn_and_wait(wrapped(ftdiag, jobdir, [job, "tree", 1, 0, 0, fifo]), while_running=during)
    b.check_ok(r, "foreign")
    jobdir.clear()
    d = r.extra["during"]
    extra = max(0.0, d["churn_cpu"] - d["idle_rate"] * d["churn_wall"])
    print(f"  ftdiag CPU while the other process churned: {b.fmt_ms(d['churn_cpu'])} over {b.fmt_s(d['churn_wall'])} "
          f"(idle rate {d['idle_rate'] * 1e3:.2f} ms/s)")
    print(f"  = {extra / children * 1e6:.1f} us of ftdiag CPU per foreign process (fork + exit events), "
          f"{extra / d['churn_wall'] * 100:.2f}% of one core at {children / d['churn_wall']:.0f} foreign processes/s")
    b.result("foreign", children=children, ftdiag_us_per_foreign_process=extra / children * 1e6,
             foreign_per_s=children / d["churn_wall"], core_pct=extra / d["churn_wall"] * 100)


def output(ftdiag, job, jobdir, pairs, lines, width):
    nbytes = lines * (width + 1)
    print(f"\n== output: `bench_job print {lines} {width}` ({nbytes / 1e6:.0f} MB) to a file, {pairs} pairs")
    argv = [job, "print", lines, width]
    sink = jobdir.path / "stdout.txt"
    console_sizes = []

    def console_size():
        logs = list(jobdir.run_dir().glob("*/console.log"))
        return {"console_bytes": sum(p.stat().st_size for p in logs)}

    bare, wrap = interleave(pairs, job, argv, under_ftdiag(ftdiag, jobdir), jobdir, stdout=sink,
                            after_wrapped=console_size)
    console_sizes = [r.extra.get("console_bytes", 0) for r in wrap]
    mb, mw = b.median([r.wall_s for r in bare]), b.median([r.wall_s for r in wrap])
    ftdiag_cpu = b.median([r.ftdiag_cpu_s for r in wrap])
    job_bare = b.median([r.job_cpu_s for r in bare])
    job_wrapped = b.median([r.job_cpu_s for r in wrap])
    print(f"  median wall: bare {b.fmt_s(mb)} ({nbytes / mb / 1e6:.0f} MB/s), wrapped {b.fmt_s(mw)} "
          f"({nbytes / mw / 1e6:.0f} MB/s)")
    print(f"  wall ratio wrapped/bare: {mw / mb:.3f} (per pair median {b.median(pair_ratios(bare, wrap)):.3f})")
    main_thread = b.median([r.self_cpu_s for r in wrap])
    print(f"  ftdiag's own CPU: {b.fmt_s(ftdiag_cpu)} = {ftdiag_cpu / (nbytes / 1e6) * 1e3:.2f} ms per MB, "
          f"{ftdiag_cpu / lines * 1e9:.0f} ns per line; of which the event loop (main thread) "
          f"{b.fmt_s(main_thread)}, {main_thread / lines * 1e9:.0f} ns per line")
    print(f"  job CPU: bare {b.fmt_s(job_bare)}, wrapped {b.fmt_s(job_wrapped)}")
    print(f"  console.log: {b.median(console_sizes) / 1e6:.0f} MB ({b.median(console_sizes) / nbytes:.2f}x the output)")
    b.result("output", bytes=nbytes, bare_MBps=nbytes / mb / 1e6, wrapped_MBps=nbytes / mw / 1e6,
             wall_ratio=mw / mb, ftdiag_cpu_s=ftdiag_cpu, ftdiag_ms_per_MB=ftdiag_cpu / (nbytes / 1e6) * 1e3,
             ftdiag_ns_per_line=ftdiag_cpu / lines * 1e9, main_thread_ns_per_line=main_thread / lines * 1e9)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--pairs", type=int, default=7, help="bare/wrapped pairs per comparison (min 5)")
    parser.add_argument("--cpu-seconds", type=float, default=4.0, help="length of the CPU-bound job")
    parser.add_argument("--idle-seconds", type=int, default=10, help="length of each sleeping job (min 4)")
    parser.add_argument("--children", type=int, default=300, help="children of the churn job")
    parser.add_argument("--foreign", type=int, default=5000, help="children of the unrelated process")
    parser.add_argument("--lines", type=int, default=2_000_000, help="lines of the output job")
    parser.add_argument("--width", type=int, default=100, help="bytes per line of the output job")
    parser.add_argument("--only", choices=["startup", "cpu", "idle", "churn", "foreign", "output"], action="append",
                        help="run only these parts (repeatable)")
    args = parser.parse_args()
    if args.pairs < 5:
        parser.error("--pairs must be at least 5")
    ftdiag, job = b.binaries(b.build_dir(args.build))
    parts = args.only or ["startup", "cpu", "idle", "churn", "foreign", "output"]
    jobdir = b.JobDir()
    print(f"overhead: {os.cpu_count()} CPUs, ftdiag {ftdiag}, scratch {jobdir.path} "
          f"({b.filesystem_of(jobdir.path)})")
    try:
        fixed = 0.0
        if "startup" in parts or "cpu" in parts:
            fixed = startup(ftdiag, job, jobdir, args.pairs)
        if "cpu" in parts:
            cpu_bound(ftdiag, job, jobdir, args.pairs, args.cpu_seconds, fixed)
        if "idle" in parts:
            idle(ftdiag, job, jobdir, args.idle_seconds)
        if "churn" in parts:
            churn(ftdiag, job, jobdir, args.pairs, args.children)
        if "foreign" in parts:
            foreign(ftdiag, job, jobdir, args.foreign)
        if "output" in parts:
            output(ftdiag, job, jobdir, args.pairs, args.lines, args.width)
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
