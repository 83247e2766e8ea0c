#!/usr/bin/env python3
"""How fast ftdiag relays a job's output, against a bare pipe, as ratios.

The job is `cat FILE` of a file of lines of one width (`y\\n` for width 2,
like `yes`). Each round runs, one after the other (order alternating):

  bare     cat FILE | cat > SINK                     the job's pipe, read by cat
  wrapped  ftdiag run --job-dir TMP --quiet -- cat FILE > SINK
                                                     the job's pipe, read by
                                                     ftdiag's relay, which also
                                                     writes the stamped console.log

so both have one pipe and one process copying it on to SINK (/dev/null by
default, which isolates the relay's cost; --sink file writes a file beside the
scratch folder). Reported per line width: MB/s bare and wrapped and their
ratio, and the CPU per MB of the relaying process (cat, or ftdiag all threads)
with their ratio. The job runs under `bench_job rusage` in both, which reports
its own CPU: ftdiag's is wait4's total minus the job's and the wrapper's; the
bare relay's is the cat process's own wait4.
"""

import argparse
import os
import sys
import time

import benchlib as b


def make_corpus(path, width, megabytes):
    """A file of lines of `width` bytes (the line end included)."""
    if width < 2:
        sys.exit("--case: a line is at least 2 bytes (one byte and its line end)")
    line = (b"y" if width == 2 else b"x" * (width - 1)) + b"\n"
    block = line * max(1, (1 << 20) // len(line))
    target = megabytes * 1_000_000
    written = 0
    with open(path, "wb") as out:
        while written + len(block) <= target:
            out.write(block)
            written += len(block)
        rest = (target - written) // len(line)
        out.write(line * rest)
        written += rest * len(line)
    return written


def wait_with_usage(pid):
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_utime + usage.ru_stime


def bare_pipeline(job, corpus, sink, rusage_file):
    """`bench_job rusage F cat CORPUS | cat > SINK`: (wall s, relay CPU s, job CPU s)."""
    read_end, write_end = os.pipe()
    start = time.perf_counter()
    producer = os.posix_spawn(str(job), [str(job), "rusage", str(rusage_file), "cat", str(corpus)], os.environ,
                              file_actions=[(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
                                            (os.POSIX_SPAWN_DUP2, write_end, 1)])
    relay = os.posix_spawn("/bin/cat", ["cat"], os.environ,
                           file_actions=[(os.POSIX_SPAWN_DUP2, read_end, 0),
                                         (os.POSIX_SPAWN_OPEN, 1, str(sink), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                                          0o644)])
    os.close(read_end)
    os.close(write_end)
    producer_status, _ = wait_with_usage(producer)
    relay_status, relay_cpu = wait_with_usage(relay)
    wall = time.perf_counter() - start
    for status, what in ((producer_status, "bare job"), (relay_status, "bare relay (cat)")):
        if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
            sys.exit(f"{what} failed: wait status {status:#x}")
    job_us, _ = (int(x) for x in rusage_file.read_text().split())
    rusage_file.unlink()
    return wall, relay_cpu, job_us / 1e6


def wrapped_run(ftdiag, job, jobdir, corpus, sink, rusage_file):
    """`ftdiag run -- bench_job rusage F cat CORPUS > SINK`: (wall s, ftdiag CPU s, job CPU s, console.log bytes)."""
    wrap = lambda argv: [ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--", *argv]
    r = b.spawn_with_rusage(job, ["cat", corpus], rusage_file, wrap=wrap, stdout=sink)
    b.check_ok(r, "wrapped run")
    console = sum(p.stat().st_size for p in jobdir.run_dir().glob("*/console.log"))
    jobdir.clear()
    return r.wall_s, r.ftdiag_cpu_s, r.job_cpu_s, console


def one_case(ftdiag, job, jobdir, width, megabytes, pairs, sink):
    corpus = jobdir.path / f"corpus-{width}.txt"
    nbytes = make_corpus(corpus, width, megabytes)
    lines = nbytes // width
    mb = nbytes / 1e6
    rusage = jobdir.path / "rusage.txt"
    print(f"\n== {width}-byte lines: {mb:.0f} MB ({lines} lines), {pairs} pairs, order alternating", flush=True)
    bare, wrap = [], []
    for i in range(pairs):
        runs = [lambda: bare.append(bare_pipeline(job, corpus, sink, rusage)),
                lambda: wrap.append(wrapped_run(ftdiag, job, jobdir, corpus, sink, rusage))]
        for run in (runs if i % 2 == 0 else reversed(runs)):
            run()
        print(f"    pair {i + 1}/{pairs}: bare {b.fmt_s(bare[-1][0])} ({mb / bare[-1][0]:.0f} MB/s, cat CPU "
              f"{b.fmt_ms(bare[-1][1])})  wrapped {b.fmt_s(wrap[-1][0])} ({mb / wrap[-1][0]:.0f} MB/s, ftdiag CPU "
              f"{b.fmt_ms(wrap[-1][1])})", flush=True)
    corpus.unlink()
    wall_bare, wall_wrap = b.median([r[0] for r in bare]), b.median([r[0] for r in wrap])
    cpu_bare, cpu_wrap = b.median([r[1] for r in bare]), b.median([r[1] for r in wrap])
    job_bare, job_wrap = b.median([r[2] for r in bare]), b.median([r[2] for r in wrap])
    pair_ratios = [w[0] / x[0] for x, w in zip(bare, wrap)]
    console = b.median([r[3] for r in wrap])
    print(f"  throughput: bare {mb / wall_bare:.0f} MB/s, wrapped {mb / wall_wrap:.0f} MB/s; "
          f"wrapped / bare {wall_bare / wall_wrap:.3f} (per pair median {1 / b.median(pair_ratios):.3f}, "
          f"range {1 / max(pair_ratios):.3f} to {1 / min(pair_ratios):.3f})")
    print(f"  relay CPU per MB: cat {cpu_bare / mb * 1e3:.3f} ms, ftdiag {cpu_wrap / mb * 1e3:.3f} ms "
          f"(ratio {cpu_wrap / cpu_bare if cpu_bare > 0 else float('nan'):.2f}); ftdiag per line "
          f"{cpu_wrap / lines * 1e9:.1f} ns")
    print(f"  job CPU (cat FILE): bare {b.fmt_ms(job_bare)}, wrapped {b.fmt_ms(job_wrap)}")
    print(f"  console.log: {console / 1e6:.0f} MB ({console / nbytes:.2f}x the output)")
    b.result(f"relay_{width}B", bytes=nbytes, bare_MBps=mb / wall_bare, wrapped_MBps=mb / wall_wrap,
             throughput_ratio=wall_bare / wall_wrap, cat_ms_per_MB=cpu_bare / mb * 1e3,
             ftdiag_ms_per_MB=cpu_wrap / mb * 1e3, cpu_ratio=cpu_wrap / cpu_bare if cpu_bare > 0 else float("nan"))


def parse_case(text):
    try:
        width, megabytes = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text}: expected WIDTH:MB, e.g. 100:200")
    return width, megabytes


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--pairs", type=int, default=7, help="bare/wrapped pairs per case (min 3)")
    parser.add_argument("--case", type=parse_case, action="append", metavar="WIDTH:MB",
                        help="line width in bytes (line end included) and size; default 100:200 and 2:40")
    parser.add_argument("--sink", choices=["null", "file"], default="null",
                        help="where the relayed output goes: /dev/null (default) or a file in the scratch folder")
    parser.add_argument("--quick", action="store_true", help="small cases, 3 pairs: checks that it works")
    args = parser.parse_args()
    cases = args.case or ([(100, 20), (2, 4)] if args.quick else [(100, 200), (2, 40)])
    pairs = 3 if args.quick else args.pairs
    if pairs < 3:
        parser.error("--pairs must be at least 3")
    ftdiag, job = b.binaries(b.build_dir(args.build))
    jobdir = b.JobDir()
    sink = "/dev/null" if args.sink == "null" else jobdir.path / "sink.txt"
    print(f"relay_throughput: {os.cpu_count()} CPUs, ftdiag {ftdiag}, scratch {jobdir.path} "
          f"({b.filesystem_of(jobdir.path)}), sink {sink}")
    try:
        for width, megabytes in cases:
            one_case(ftdiag, job, jobdir, width, megabytes, pairs, sink)
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
