#!/usr/bin/env python3
"""What processes that are not the job's cost ftdiag: the netlink process
connector reports every fork, exec and exit on the host.

ftdiag supervises a waiting 1-process job (`bench_job tree 1 0 0 FIFO`)
while a loop OUTSIDE the job starts short-lived processes. ftdiag's CPU
(all its threads: the sum of /proc/PID/task/*/schedstat; utime+stime of
/proc/PID/stat as a coarse cross-check) is measured over a quiet window,
then over each load; the load's share, less the quiet rate times its
duration, divided by the processes it started, is the cost per unrelated
host process. Loads:

  fork     `bench_job churn K`: K children, each forked, exiting at once,
           reaped (a fork and an exit event each)
  spawn    a /bin/sh loop running /bin/true K times (fork, exec, exit)
  threads  a process starting and joining K threads one after the other
           (a thread fork and a thread exit each; cost per thread)

With --baseline DIR (another build's folder, e.g. an older commit built by
`git archive COMMIT | tar -x -C DIR`), both builds are measured in
alternation, round by round, so that the machine's noise falls on both.
Each build's filters are read back from its run record
(`mechanisms.netlink-kernel-filter`, `-socket-filter`, `-tree-filter`).

As root, ftdiag filters out the processes outside its tree in the kernel
(the eBPF tree filter). --user NAME runs ftdiag as that user instead
(setpriv; needs Linux >= 6.6, where any user may join the connector), where
bpf(2) is refused: what an unprivileged ftdiag pays, with the event-type
filters, the in-place rejection and the paced reads.

Other processes on the host add events too; the quiet window's rate is
subtracted, so a steady background cancels, a bursty one adds noise: run on
a quiet machine and compare medians.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

import benchlib as b

LOADS = ("fork", "spawn", "threads")


def stat_cpu_s(pid):
    """utime+stime of /proc/PID/stat (all threads of the process), in seconds."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        fields = stat[stat.rindex(")") + 2:].split()
        return (int(fields[11]) + int(fields[12])) / b.CLOCK_TICK
    except (OSError, ValueError, IndexError):
        return float("nan")


def load_argv(load, job, count):
    if load == "fork":
        return [job, "churn", count]
    if load == "spawn":
        return ["/bin/sh", "-c", f'i=0; while [ "$i" -lt {count} ]; do /bin/true; i=$((i + 1)); done']
    script = ("import threading\n"
              f"for _ in range({count}):\n"
              "    t = threading.Thread(target=int); t.start(); t.join()\n")
    return [sys.executable, "-c", script]


def run_load(pid, load, job, count):
    """ftdiag's CPU (schedstat, stat) and the wall time while the load runs."""
    c0, s0, t0 = b.cpu_s(pid), stat_cpu_s(pid), time.perf_counter()
    r = b.spawn_and_wait(load_argv(load, job, count))
    c1, s1, t1 = b.cpu_s(pid), stat_cpu_s(pid), time.perf_counter()
    b.check_ok(r, f"load {load}")
    return c1 - c0, s1 - s0, t1 - t0


def filters_of(jobdir):
    """The netlink mechanisms the run recorded (first line of its journal)."""
    for journal in jobdir.run_dir().glob("*/journal.jsonl"):
        try:
            with open(journal) as f:
                first = json.loads(f.readline())
        except (OSError, ValueError):
            continue
        mech = first.get("mechanisms") or first.get("started", {}).get("mechanisms") or {}

        def say(key):
            value = mech.get(key)
            if value is True:
                return "yes"
            if isinstance(value, dict):
                return f"no ({(value.get('missing') or {}).get('reason', '?')})"
            return "not recorded"
        return (f"kernel filter {say('netlink-kernel-filter')}, socket filter {say('netlink-socket-filter')}, "
                f"tree filter {say('netlink-tree-filter')}")
    return "no run record found"


def as_user(user, argv):
    """argv run as `user` (uid and gid from the passwd entry, no groups)."""
    if not user:
        return argv
    import pwd
    entry = pwd.getpwnam(user)
    import shutil
    setpriv = shutil.which("setpriv") or sys.exit("--user needs setpriv (util-linux)")
    return [setpriv, f"--reuid={entry.pw_uid}", f"--regid={entry.pw_gid}", "--clear-groups", "--", *argv]


def one_round(ftdiag, job, jobdir, loads, count, quiet_s, user=None):
    """One supervised run: the quiet rate, then each load in turn."""
    fifo = jobdir.path / "release.fifo"
    if fifo.exists():
        fifo.unlink()
    os.mkfifo(fifo)
    if user:
        os.chmod(jobdir.path, 0o777)  # the job directory and the FIFO, for the other user
        os.chmod(fifo, 0o666)

    def during(pid):
        fd = None
        deadline = time.monotonic() + 30
        while fd is None:
            try:
                fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # the job is waiting on it
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.01)
        try:
            time.sleep(1.0)
            c0, t0 = b.cpu_s(pid), time.perf_counter()
            time.sleep(quiet_s)
            rate = (b.cpu_s(pid) - c0) / (time.perf_counter() - t0)
            out = {"quiet_rate": rate, "filters": filters_of(jobdir)}
            for load in loads:
                cpu, stat_cpu, wall = run_load(pid, load, job, count)
                out[load] = {"us": max(0.0, cpu - rate * wall) / count * 1e6,
                             "stat_us": max(0.0, stat_cpu - rate * wall) / count * 1e6,
                             "per_s": count / wall}
            return out
        finally:
            os.close(fd)

    argv = as_user(user, [ftdiag, "run", "--job-dir", jobdir.run_dir(), "--quiet", "--", job, "tree", 1, 0, 0, fifo])
    r = b.spawn_and_wait(argv, while_running=during)
    b.check_ok(r, "ftdiag run")
    jobdir.clear()
    return r.extra["during"]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--baseline", help="another build folder to measure in alternation (its ftdiag only)")
    parser.add_argument("--processes", type=int, default=3000, help="processes (threads) each load starts")
    parser.add_argument("--rounds", type=int, default=3, help="supervised runs per build")
    parser.add_argument("--quiet-seconds", type=float, default=2.0, help="the window for the quiet rate")
    parser.add_argument("--load", choices=LOADS, action="append", help="run only these loads (repeatable)")
    parser.add_argument("--user", help="run ftdiag as this user (e.g. nobody): the unprivileged filters")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    builds = [("current", ftdiag)]
    if args.baseline:
        base = Path(args.baseline).resolve() / "ftdiag"
        if not os.access(base, os.X_OK):
            sys.exit(f"{base} is missing: build the baseline's ftdiag target first")
        builds.append(("baseline", base))
    loads = args.load or list(LOADS)
    jobdir = b.JobDir()
    print(f"netlink_cost: {os.cpu_count()} CPUs, {args.processes} unrelated processes per load, "
          f"{args.rounds} rounds, ftdiag as {args.user or 'the current user'}; builds: "
          + ", ".join(f"{name} {path}" for name, path in builds))
    print(f"load average at start: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    results = {name: [] for name, _ in builds}
    try:
        for i in range(args.rounds):
            for name, binary in builds:
                r = one_round(binary, job, jobdir, loads, args.processes, args.quiet_seconds, args.user)
                results[name].append(r)
                parts = "  ".join(f"{load} {r[load]['us']:.2f} us ({r[load]['per_s']:.0f}/s)" for load in loads)
                print(f"  round {i + 1} {name:8s}: quiet {r['quiet_rate'] * 1e3:.2f} ms/s  {parts}", flush=True)
    finally:
        jobdir.cleanup()

    print(f"load average at end: {' '.join(Path('/proc/loadavg').read_text().split()[:3])}")
    print("\nftdiag CPU per unrelated host process (per thread for `threads`), medians over rounds "
          "(schedstat; /proc/PID/stat ticks in brackets):")
    for name, _ in builds:
        print(f"  {name}: {results[name][0]['filters']}")
        for load in loads:
            us = b.median([r[load]["us"] for r in results[name]])
            stat_us = b.median([r[load]["stat_us"] for r in results[name]])
            rate = b.median([r[load]["per_s"] for r in results[name]])
            lo = min(r[load]["us"] for r in results[name])
            hi = max(r[load]["us"] for r in results[name])
            print(f"    {load:8s} {us:7.2f} us  (range {lo:.2f} to {hi:.2f}; [{stat_us:.1f} us])  at {rate:.0f}/s")
            b.result(f"netlink_{load}", build=name, user=args.user or "self", us_per_process=us,
                     stat_us_per_process=stat_us, processes_per_s=rate)
    if args.baseline:
        for load in loads:
            cur = b.median([r[load]["us"] for r in results["current"]])
            base = b.median([r[load]["us"] for r in results["baseline"]])
            print(f"  {load}: current / baseline = {cur / base:.3f}" if base > 0 else f"  {load}: baseline 0")
    return 0


if __name__ == "__main__":
    sys.exit(main())
