#!/usr/bin/env python3
"""How fast ftdiag relays a job's output, against a bare pipe, as ratios.

  python3 bench/relay_throughput.py [--pairs 7] [--case WIDTH:MB ...] [--scratch DIR]
                                    [--sink null|file] [--quick] [--build DIR]

The job is `cat FILE` of a file of lines of one width (`y\\n` for width 2,
like `yes`). Each round runs, one after the other (order alternating):

  bare     cat FILE | cat > SINK                     the job's pipe, read by cat
  wrapped  ftdiag run --job-dir TMP --quiet -- cat FILE > SINK
                                                     the job's pipe, read by
                                                     ftdiag's relay, which also
                                                     writes the stamped console.log

so both have one pipe and one process copying it on to SINK (/dev/null by
default, which isolates the relay's cost; --sink file writes a file in the
scratch folder). console.log goes to the scratch folder (--scratch, default
$TMPDIR): on a disk, ftdiag's last step, the fdatasync of console.log, waits
for the disk; on a tmpfs (--scratch /dev/shm) it does not.

Reported per line width, bare and wrapped, with the ratio wrapped / bare:
  - the job's throughput: bytes / time until the job exited, which is what a
    job printing that fast sees (it blocks when the relay falls behind); the
    job's end is when `bench_job rusage` opens its output, a FIFO, once its
    child exited;
  - end to end: bytes / time until the relay exited (ftdiag: with its final
    sync of console.log);
  - CPU per MB of the relaying process: cat, or ftdiag with all its threads
    (wait4's total minus the job's and the wrapper's, which `bench_job
    rusage` reports).
"""

import argparse
import os
import sys
import tempfile
import threading
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
    """Reaps pid: (wait status, its CPU seconds)."""
    _, status, usage = os.wait4(pid, 0)
    return status, usage.ru_utime + usage.ru_stime


class JobEnd:
    """When the job exited, and its CPU time, from `bench_job rusage FIFO ...`.

    The wrapper opens its output file once its child exited; here that file is
    a FIFO, whose open blocks until a thread of ours opens the other end, so
    the moment the open returns is the job's end, to the microsecond, and the
    same clock times both the bare and the wrapped run.
    """

    def __init__(self, fifo):
        self.fifo = fifo
        if not fifo.exists():
            os.mkfifo(fifo)
        self.at = None
        self.text = ""
        self._thread = threading.Thread(target=self._wait, daemon=True)
        self._thread.start()

    def _wait(self):
        with open(self.fifo) as f:
            self.at = time.perf_counter()
            self.text = f.read()

    def result(self):
        """(job end on perf_counter, job CPU s); call once the wrapper has exited."""
        # The wrapper has exited: if it opened the FIFO, our reader sees the end
        # of the file at once; if it never did, our reader still waits in open.
        self._thread.join(timeout=5)
        if self._thread.is_alive():
            try:
                os.close(os.open(self.fifo, os.O_WRONLY | os.O_NONBLOCK))
            except OSError:
                pass
            self._thread.join()
        try:
            job_us, wrapper_us = (int(x) for x in self.text.split())
        except ValueError:
            sys.exit(f"{self.fifo}: no CPU times from `bench_job rusage`")
        return self.at, job_us / 1e6, wrapper_us / 1e6


def bare_pipeline(job, corpus, sink, fifo):
    """`bench_job rusage FIFO cat CORPUS | cat > SINK`: (wall s, relay CPU s, job CPU s, job s)."""
    end = JobEnd(fifo)
    read_end, write_end = os.pipe()
    start = time.perf_counter()
    producer = os.posix_spawn(str(job), [str(job), "rusage", str(fifo), "cat", str(corpus)], os.environ,
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
    job_at, job_cpu, _ = end.result()
    return wall, relay_cpu, job_cpu, job_at - start


def wrapped_run(ftdiag, job, jobdir, corpus, sink, fifo):
    """`ftdiag run -- bench_job rusage FIFO cat CORPUS > SINK`:
    (wall s, ftdiag CPU s, job CPU s, job s, console.log bytes)."""
    argv = [ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--", job, "rusage", fifo, "cat", corpus]
    end = JobEnd(fifo)
    start = time.perf_counter()
    r = b.spawn_and_wait(argv, stdout=sink)
    b.check_ok(r, "wrapped run")
    job_at, job_cpu, wrapper_cpu = end.result()
    ftdiag_cpu = max(0.0, r.total_cpu_s - job_cpu - wrapper_cpu)
    console = sum(p.stat().st_size for p in jobdir.run_dir().glob("*/console.log"))
    jobdir.clear()
    return r.wall_s, ftdiag_cpu, job_cpu, job_at - start, console


def ratio_line(what, mb, bare_s, wrap_s):
    """MB/s bare and wrapped from per-run seconds, with the ratio of the medians and the per-pair range."""
    pairs = [x / w for x, w in zip(bare_s, wrap_s)]  # throughput ratios, wrapped / bare
    bare, wrap = b.median(bare_s), b.median(wrap_s)
    print(f"  {what}: bare {mb / bare:.0f} MB/s, wrapped {mb / wrap:.0f} MB/s; wrapped / bare {bare / wrap:.3f} "
          f"(per pair: median {b.median(pairs):.3f}, {min(pairs):.3f} to {max(pairs):.3f})")
    return mb / bare, mb / wrap, bare / wrap


def one_case(ftdiag, job, jobdir, width, megabytes, pairs, sink):
    corpus = jobdir.path / f"corpus-{width}.txt"
    nbytes = make_corpus(corpus, width, megabytes)
    lines = nbytes // width
    mb = nbytes / 1e6
    rusage = jobdir.path / "rusage.fifo"
    print(f"\n== {width}-byte lines: {mb:.0f} MB ({lines} lines), {pairs} pairs, order alternating", flush=True)
    bare, wrap = [], []
    for i in range(pairs):
        runs = [lambda: bare.append(bare_pipeline(job, corpus, sink, rusage)),
                lambda: wrap.append(wrapped_run(ftdiag, job, jobdir, corpus, sink, rusage))]
        for run in (runs if i % 2 == 0 else reversed(runs)):
            run()
        (b_wall, b_cpu, _, b_job), (w_wall, w_cpu, _, w_job, _) = bare[-1], wrap[-1]
        print(f"    pair {i + 1}/{pairs}: bare job {b.fmt_s(b_job)}, end {b.fmt_s(b_wall)}, cat CPU {b.fmt_ms(b_cpu)}; "
              f"wrapped job {b.fmt_s(w_job)}, end {b.fmt_s(w_wall)}, ftdiag CPU {b.fmt_ms(w_cpu)}", flush=True)
    corpus.unlink()
    job_bare, job_wrap, job_ratio = ratio_line("the job's throughput", mb, [r[3] for r in bare], [r[3] for r in wrap])
    _, end_wrap, end_ratio = ratio_line("end to end", mb, [r[0] for r in bare], [r[0] for r in wrap])
    cpu_bare, cpu_wrap = b.median([r[1] for r in bare]), b.median([r[1] for r in wrap])
    cpu_ratio = cpu_wrap / cpu_bare if cpu_bare > 0 else float("nan")
    print(f"  relay CPU per MB: cat {cpu_bare / mb * 1e3:.3f} ms, ftdiag {cpu_wrap / mb * 1e3:.3f} ms (ratio "
          f"{cpu_ratio:.2f}); ftdiag per line {cpu_wrap / lines * 1e9:.1f} ns")
    print(f"  job CPU (cat FILE): bare {b.fmt_ms(b.median([r[2] for r in bare]))}, "
          f"wrapped {b.fmt_ms(b.median([r[2] for r in wrap]))}")
    console = b.median([r[4] for r in wrap])
    print(f"  console.log: {console / 1e6:.0f} MB ({console / nbytes:.2f}x the output)")
    b.result(f"relay_{width}B", bytes=nbytes, bare_MBps=job_bare, wrapped_MBps=job_wrap, ratio=job_ratio,
             end_to_end_MBps=end_wrap, end_to_end_ratio=end_ratio, cat_ms_per_MB=cpu_bare / mb * 1e3,
             ftdiag_ms_per_MB=cpu_wrap / mb * 1e3, cpu_ratio=cpu_ratio)


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
    parser.add_argument("--scratch", help="folder for the job directories and corpus (default: $TMPDIR); "
                                          "/dev/shm keeps the disk out of the measurement")
    parser.add_argument("--quick", action="store_true", help="small cases, 3 pairs: checks that it works")
    args = parser.parse_args()
    if args.scratch:
        tempfile.tempdir = args.scratch
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
