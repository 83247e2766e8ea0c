"""Shared helpers of the benchmark drivers (overhead.py, peak_rss.py,
journal_growth.py, readback.py).

Processes are started with os.posix_spawn and watched with
waitid(WNOWAIT): once a process has exited but before it is reaped, its
/proc/PID/stat and /proc/PID/schedstat still hold its own CPU time, which
separates ftdiag's CPU from its job's (the job's is in wait4's rusage,
which covers ftdiag and every child it reaped).

/proc/PID/schedstat covers one thread only, and a zombie keeps no precise
total of its other threads (ftdiag syncs its journal on a second thread). So
spawn_with_rusage runs the job under `bench_job rusage`, which reports the
job's own CPU time (wait4, microseconds): ftdiag's whole CPU time, all its
threads, is then wait4's total for ftdiag minus the job's and the wrapper's.
"""

import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO = BENCH_DIR.parent
CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def build_dir(arg=None):
    """The CMake build folder: --build, then $FTDIAG_BUILD, then build/default."""
    path = Path(arg or os.environ.get("FTDIAG_BUILD") or REPO / "build" / "default")
    return path.resolve()


def binaries(build):
    ftdiag = build / "ftdiag"
    job = build / "bench" / "bench_job"
    for binary in (ftdiag, job):
        if not os.access(binary, os.X_OK):
            sys.exit(f"{binary} is missing: build first (cmake --preset default && "
                     f"cmake --build build/default), or run bench/run_all.sh")
    return ftdiag, job


@dataclass
class Run:
    wall_s: float
    status: int                     # waitpid status of the spawned process
    total_cpu_s: float              # wait4 rusage: the process and every child it reaped
    self_cpu_s: float               # the spawned process alone (schedstat, else stat ticks)
    self_ticks_cpu_s: float         # utime+stime of /proc/PID/stat, in clock ticks
    extra: dict = field(default_factory=dict)

    @property
    def children_cpu_s(self):
        return max(0.0, self.total_cpu_s - self.self_cpu_s)

    @property
    def job_cpu_s(self):
        """The job's CPU time, from spawn_with_rusage's wrapper."""
        return self.extra["job_cpu_s"]

    @property
    def ftdiag_cpu_s(self):
        """The supervisor's CPU time, all its threads (spawn_with_rusage; 0 for a bare run)."""
        return self.extra["outer_cpu_s"]


def _own_cpu(pid):
    """(schedstat seconds or None, stat utime+stime seconds) of an unreaped zombie."""
    ticks = 0.0
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()
        ticks = (int(fields[11]) + int(fields[12])) / CLOCK_TICK  # fields 14 and 15
    except (OSError, ValueError, IndexError):
        pass
    sched = None
    try:
        sched = int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    return sched, ticks


def cpu_s(pid):
    """A live process's own CPU seconds, all its threads (schedstat of each, else stat ticks)."""
    total, found = 0.0, False
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            try:
                total += int((task / "schedstat").read_text().split()[0]) / 1e9
                found = True
            except (OSError, ValueError, IndexError):
                pass
    except OSError:
        pass
    if found:
        return total
    sched, ticks = _own_cpu(pid)
    return sched if sched is not None else ticks


def spawn_and_wait(argv, stdout=None, stderr=None, while_running=None):
    """Runs argv to its end. stdout/stderr: a path to write, or None for /dev/null.

    while_running(pid) is called once the process started; its return value
    lands in Run.extra["during"].
    """
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, str(stdout or "/dev/null"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, str(stderr or "/dev/null"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(str(argv[0]), [str(a) for a in argv], os.environ, file_actions=actions)
    extra = {}
    try:
        if while_running:
            extra["during"] = while_running(pid)
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        wall = time.perf_counter() - start
        sched, ticks = _own_cpu(pid)
    finally:
        _, status, usage = os.wait4(pid, 0)
    total = usage.ru_utime + usage.ru_stime
    return Run(wall, status, total, sched if sched is not None else ticks, ticks, extra)


def spawn_with_rusage(job, job_argv, rusage_file, wrap=None, **kwargs):
    """Runs `bench_job rusage FILE JOB_ARGV...`, bare or as wrap(argv) (under ftdiag).

    Sets extra["job_cpu_s"] (the job and its reaped descendants) and
    extra["outer_cpu_s"]: the spawned process's total CPU minus the job's and
    the wrapper's, that is ftdiag's own, every thread (about 0 for a bare run).
    """
    inner = [job, "rusage", rusage_file, *job_argv]
    r = spawn_and_wait(wrap(inner) if wrap else inner, **kwargs)
    try:
        child_us, wrapper_us = (int(x) for x in Path(rusage_file).read_text().split())
    except (OSError, ValueError):
        sys.exit(f"{rusage_file}: no CPU times from `bench_job rusage` (wait status {r.status:#x})")
    r.extra["job_cpu_s"] = child_us / 1e6
    r.extra["wrapper_cpu_s"] = wrapper_us / 1e6
    r.extra["outer_cpu_s"] = max(0.0, r.total_cpu_s - (child_us + wrapper_us) / 1e6) if wrap else 0.0
    Path(rusage_file).unlink()
    return r


def check_ok(run, what):
    if not os.WIFEXITED(run.status) or os.WEXITSTATUS(run.status) != 0:
        sys.exit(f"{what} failed: wait status {run.status:#x}")


class JobDir:
    """A scratch --job-dir, emptied after every run so runs do not accumulate."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="ftdiag-bench-")
        self.path = Path(self._tmp.name)

    def run_dir(self):
        return self.path / "jobs"

    def clear(self):
        import shutil
        shutil.rmtree(self.run_dir(), ignore_errors=True)

    def cleanup(self):
        self._tmp.cleanup()


def median(values):
    return statistics.median(values) if values else float("nan")


def fmt_s(seconds):
    return f"{seconds:.3f} s"


def fmt_ms(seconds):
    return f"{seconds * 1e3:.1f} ms"


def result(name, **values):
    """One machine-readable line; run_all.sh gathers them into its summary."""
    parts = " ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in values.items())
    print(f"RESULT {name} {parts}", flush=True)


def filesystem_of(path):
    """The fstype of the mount holding path, from /proc/self/mountinfo."""
    path = os.path.realpath(path)
    best, fstype = "", "?"
    try:
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            left, _, right = line.partition(" - ")
            mount_point = left.split()[4].replace("\\040", " ")
            if (path == mount_point or path.startswith(mount_point.rstrip("/") + "/")) and len(mount_point) > len(best):
                best, fstype = mount_point, right.split()[0]
    except OSError:
        pass
    return fstype
