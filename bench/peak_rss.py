#!/usr/bin/env python3
"""ftdiag's own peak RSS while it supervises a job (target: 10 MB or less).

The job (`bench_job tree P L W FIFO`) starts P processes that print L lines of
W bytes each, then waits on a FIFO. Once the job holds the FIFO, the driver
lets ftdiag take a few more samples of the whole tree (--hold seconds), reads
VmHWM, VmRSS, RssAnon and RssFile from /proc/<ftdiag>/status, and releases
the job. VmHWM is the kernel's high-water mark of ftdiag's resident set up to
that moment.

ftdiag runs under `bench_job maxrss`, a small exec wrapper whose wait4
ru_maxrss is ftdiag's whole-life peak as the kernel records it at exit,
summary included (without --quiet). It also covers the job processes ftdiag
reaped, and it can read a little under VmHWM, the kernel keeping that mark
lazily. (A Python parent would hand its own, larger, peak to ftdiag through
exec, hence the wrapper.)

Cases: a 1-process job with no output, and a 200-process job printing a lot,
each with --quiet, and the large one again without --quiet (the summary reads
the record back).
"""

import argparse
import errno
import os
import sys
import time
from pathlib import Path

import benchlib as b


def status_fields(pid, names=("VmHWM", "VmRSS", "RssAnon", "RssFile")):
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in names:
            values[key] = int(rest.split()[0])  # kB
    return values


def child_of(parent, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            children = Path(f"/proc/{parent}/task/{parent}/children").read_text().split()
            if children:
                return int(children[0])
        except OSError:
            pass
        time.sleep(0.005)
    raise RuntimeError(f"no child of {parent} appeared")


def open_writer(fifo, timeout):
    """Opens the FIFO for writing once the job opened it for reading."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError as e:
            if e.errno != errno.ENXIO or time.monotonic() > deadline:
                raise
        time.sleep(0.01)


def measure(ftdiag, job, jobdir, processes, lines, width, hold, quiet):
    fifo = jobdir.path / "release.fifo"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    rss_file = jobdir.path / "maxrss.txt"
    flags = ["--quiet"] if quiet else []
    argv = [job, "maxrss", rss_file, ftdiag, "run", "--job-dir", jobdir.run_dir(), *flags, "--",
            job, "tree", processes, lines, width, fifo]

    def while_running(wrapper):
        ftdiag_pid = child_of(wrapper)
        fd = open_writer(fifo, timeout=300)
        try:
            time.sleep(hold)
            return status_fields(ftdiag_pid)
        finally:
            os.close(fd)

    r = b.spawn_and_wait(argv, while_running=while_running)
    b.check_ok(r, f"{processes}-process job")
    seen = r.extra["during"]
    whole = int(rss_file.read_text())
    console = sum(p.stat().st_size for p in jobdir.run_dir().glob("*/console.log"))
    journal = sum(p.stat().st_size for p in jobdir.run_dir().glob("*/journal.jsonl"))
    jobdir.clear()
    return seen, whole, console, journal


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--processes", type=int, default=200, help="processes of the large job")
    parser.add_argument("--lines", type=int, default=5000, help="lines each process of the large job prints")
    parser.add_argument("--width", type=int, default=100, help="bytes per line")
    parser.add_argument("--hold", type=float, default=2.0, help="seconds ftdiag samples the waiting tree")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    jobdir = b.JobDir()
    out_mb = args.processes * args.lines * (args.width + 1) / 1e6
    cases = [
        ("small", 1, 0, 0, True, "1 process, no output, --quiet"),
        ("large", args.processes, args.lines, args.width, True,
         f"{args.processes} processes x {args.lines} lines x {args.width} B ({out_mb:.0f} MB), --quiet"),
        ("large_summary", args.processes, args.lines, args.width, False,
         f"{args.processes} processes x {args.lines} lines, with the summary"),
    ]
    print(f"peak_rss: ftdiag {ftdiag}; VmHWM read {args.hold} s after the job's tree is complete; target 10 MB")
    try:
        for key, processes, lines, width, quiet, label in cases:
            seen, whole, console, journal = measure(ftdiag, job, jobdir, processes, lines, width, args.hold, quiet)
            mb = lambda kb: kb / 1024
            print(f"  {label}")
            print(f"    while supervising: VmHWM {mb(seen['VmHWM']):.1f} MiB, VmRSS {mb(seen['VmRSS']):.1f} MiB "
                  f"(RssAnon {mb(seen['RssAnon']):.1f} MiB, RssFile {mb(seen['RssFile']):.1f} MiB)")
            print(f"    whole life (wait4 ru_maxrss): {mb(whole):.1f} MiB; "
                  f"console.log {console / 1e6:.1f} MB, journal {journal / 1e3:.0f} kB")
            b.result(f"peak_rss_{key}", processes=processes, vmhwm_MiB=mb(seen["VmHWM"]),
                     rss_anon_MiB=mb(seen["RssAnon"]), whole_life_MiB=mb(whole),
                     within_10MB=("yes" if seen["VmHWM"] * 1024 <= 10e6 else "no"))
    finally:
        jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
