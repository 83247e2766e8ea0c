#!/usr/bin/env python3
"""What the Python probe (probes/python) costs an interpreter's start, as ratios.

Runs `PYTHON -c CODE` (default `pass`) --runs times in each of three setups,
interleaved bare, inert, active, bare, ... so that the machine's noise falls
on all alike, and reports the median wall time of each and the ratios to bare:

  bare    no probe: the interpreter as the job would start without ftdiag
  inert   the probe folder first on PYTHONPATH but no FTDIAG_RUN_DIR (a
          process that inherited PYTHONPATH outside `ftdiag run`): chaining only
  active  what `ftdiag run` gives the job: FTDIAG_RUN_DIR, FTDIAG_PROBE_SOCKET
          (a bound datagram socket, drained here), PYTHONFAULTHANDLER=1

The probe runs from a copy of --probe-dir byte-compiled with compileall, as
an install should ship it (a job usually cannot write __pycache__ beside an
installed probe, and PYTHONDONTWRITEBYTECODE may be set): --source-only runs
the copy uncompiled, what every process pays without the .pyc files.
The default PYTHON is the one running this script; `--python /usr/bin/python3
--code "import torch"` shows the import hook's cost on a real framework
import. No threshold: a figure to read, not a test.
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import REPO, fmt_ms, result  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--code", default="pass")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--probe-dir", default=str(REPO / "probes" / "python"))
    parser.add_argument("--source-only", action="store_true", help="no .pyc files for the probe")
    args = parser.parse_args()

    base = {k: v for k, v in os.environ.items()
            if not k.startswith("FTDIAG_") and k not in ("PYTHONPATH", "PYTHONFAULTHANDLER")}
    with tempfile.TemporaryDirectory(prefix="ftdiag-pyprobe-bench-") as scratch:
        run_dir = os.path.join(scratch, "run")
        os.mkdir(run_dir)
        probe_dir = os.path.join(scratch, "probe")
        shutil.copytree(args.probe_dir, probe_dir,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        if not args.source_only:
            subprocess.run([args.python, "-m", "compileall", "-q", probe_dir], check=True)
        sock_path = os.path.join(run_dir, "probe.sock")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.bind(sock_path)
        sock.setblocking(False)
        setups = {
            "bare": dict(base),
            "inert": dict(base, PYTHONPATH=probe_dir),
            "active": dict(base, PYTHONPATH=probe_dir, PYTHONFAULTHANDLER="1",
                           FTDIAG_RUN_DIR=run_dir, FTDIAG_PROBE_SOCKET=sock_path),
        }
        times = {name: [] for name in setups}
        argv = [args.python, "-c", args.code]
        for name, env in setups.items():  # warm the page cache and the .pyc files
            subprocess.run(argv, env=env, check=True)
        for _ in range(args.runs):
            for name, env in setups.items():
                start = time.perf_counter()
                subprocess.run(argv, env=env, check=True)
                times[name].append(time.perf_counter() - start)
                try:
                    while True:
                        sock.recv(65536)
                except BlockingIOError:
                    pass
        sock.close()

    med = {name: statistics.median(values) for name, values in times.items()}
    compiled = "source only" if args.source_only else "probe byte-compiled"
    print(f"{args.python} -c {args.code!r}, {compiled}, {args.runs} runs each, median wall time:")
    for name in setups:
        print(f"  {name:7s} {fmt_ms(med[name])}   ratio to bare {med[name] / med['bare']:.3f}")
    result("python_probe_startup", bare_ms=med["bare"] * 1e3, inert_ms=med["inert"] * 1e3,
           active_ms=med["active"] * 1e3, inert_ratio=med["inert"] / med["bare"],
           active_ratio=med["active"] / med["bare"])


if __name__ == "__main__":
    main()
