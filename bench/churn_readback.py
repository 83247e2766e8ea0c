#!/usr/bin/env python3
"""Reading back the journal of a job that churns through short-lived
processes: is `ftdiag analyze` bounded by the shape of the job, not by its
length or churn (docs/evidence.md, "Which processes are kept whole")?

A real short run (`ftdiag run --quiet --interval 0.05 -- /bin/sleep 0.3`)
gives the exact shapes of the run, process, sample (with a process reading),
death and end records. From them a journal is synthesized:

  - one long-lived job process (seen_by spawn), alive from start to end;
  - --processes short-lived children of it (default 220,000), one started
    about every 1 ms of journal time, each living 0.5 to 4 ms: a "process"
    record (seen_by netlink-fork, one of a few helper commands) and, at its
    end, an exit-0 "death" record from netlink, followed in half of the cases
    by a second witness (subreaper) of the same death;
  - pids handed out the way the kernel does, in increasing order within a
    pool of --pid-pool (30,000) and wrapping around, skipping live ones, so
    every pid is reused several times;
  - --killed of them (default 5) killed by SIGKILL instead (kept whole);
  - a sample every 0.5 s of journal time, and one right after a death when
    the last such was at least 0.1 s before (as `ftdiag run` does), listing
    the processes alive at that moment (the job's own every 20th sample);
  - the job's death (waitpid, then netlink) and the end record.

Then, in one loop (--reps rounds, medians), each under `bench_job maxrss`
for its whole-life peak RSS, with its wall time and its CPU time (wait4 of
the wrapper: on a loaded machine the wall time mostly measures the queue for
a core, the CPU time does not):
  baseline   wc -l journal.jsonl > FILE    (reading the bytes once)
  text       ftdiag analyze RUN_DIR > FILE
  json       ftdiag analyze RUN_DIR --format json > FILE
Target: peak RSS <= 64 MiB in both formats, whatever the journal's length.
The same is done for a journal of --processes / 10 (--small-fraction): if
memory is bounded by the job's shape, the two peaks should be about equal.
"""

import argparse
import heapq
import json
import random
import shutil
import sys
import tempfile
from pathlib import Path

import benchlib as b

TARGET_RSS_MIB = 64.0
TICK_S = 0.5                   # the default sample interval
DEATH_SAMPLE_MIN_S = 0.1       # supervision_events.cpp kMinSecondsBetweenDeathSamples
REFRESH_TICKS = 20             # MemorySampler::kRefreshTicks

# Helpers a training job runs now and then: (argv, comm).
COMMANDS = [
    (["/bin/sh", "-c", "nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader"], "sh"),
    (["nvidia-smi", "--query-gpu=memory.used,memory.total", "--format=csv,noheader"], "nvidia-smi"),
    (["/usr/lib/gcc/x86_64-linux-gnu/12/cc1plus", "-quiet", "-O3", "-fPIC", "/tmp/torch_extensions/kernel.cpp"], "cc1plus"),
    (["git", "rev-parse", "--short", "HEAD"], "git"),
    (["/sbin/ldconfig", "-p"], "ldconfig"),
    (["uname", "-m"], "uname"),
    (["python3", "-c", "import torch; print(torch.cuda.is_available())"], "python3"),
    (["df", "-B1", "/dev/shm"], "df"),
]

SIGKILL_STATUS = {"core_dumped": False, "description": "killed by SIGKILL", "exit_code": None,
                  "launcher_code": -9, "signal": 9, "signal_name": "SIGKILL"}


def dumps(record):
    # The journal's own shape: keys sorted (nlohmann's std::map), no spaces.
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def template(record, **slots):
    """A str.format template of `record` with the named fields replaced by {slot}s."""
    r = dict(record)
    for key, slot in slots.items():
        r[key] = f"@@{slot}@@"
    text = dumps(r).replace("{", "{{").replace("}", "}}")
    for slot in slots.values():
        text = text.replace(f'"@@{slot}@@"', "{" + slot + "}")
    return text


class Scratch:
    """A scratch folder, removed at the end unless --keep."""

    def __init__(self):
        self.path = Path(tempfile.mkdtemp(prefix="ftdiag-bench-churn-"))

    def cleanup(self):
        shutil.rmtree(self.path, ignore_errors=True)


def real_records(ftdiag, jobdir):
    """The records of a short real run, by type (the first of each; the sample with a reading if any)."""
    short = jobdir.path / "short"
    r = b.spawn_and_wait([ftdiag, "run", "--job-dir", short, "--quiet", "--interval", "0.05",
                          "--", "/bin/sleep", "0.3"])
    b.check_ok(r, "the short run")
    run_dir = next(short.iterdir())
    records = {}
    reading = None
    for line in (run_dir / "journal.jsonl").read_text().splitlines():
        rec = json.loads(line)
        records.setdefault(rec["type"], rec)
        if rec["type"] == "sample" and rec["processes"] and reading is None:
            reading = rec["processes"][0]
            records["sample"] = rec
        if rec["type"] == "death" and rec["status"].get("exit_code") == 0:
            records["death"] = rec
    missing = {"run", "process", "sample", "death", "end"} - records.keys()
    if missing:
        sys.exit(f"churn_readback: the short run's journal has no {', '.join(sorted(missing))} record")
    if reading is None:  # every key of a reading, as record_fields.h lists them
        reading = {"pid": 0, "rss_bytes": 0, "rss_anon_bytes": 0, "rss_file_bytes": 0, "rss_shmem_bytes": 0,
                   "vm_hwm_bytes": 0, "swap_bytes": 0}
    shutil.rmtree(short)
    return records, reading


class Writer:
    def __init__(self, records, reading, out):
        self.out = out
        self.run = dict(records["run"])
        self.sample = dict(records["sample"])
        self.process = dict(records["process"])
        self.death = dict(records["death"])
        self.end = dict(records["end"])
        self.process_t = template(self.process, time="time", pid="pid", ppid="ppid", nspid="nspid",
                                  argv="argv", comm="comm", start_ticks="ticks", seen_by="seen_by")
        self.death_t = template(self.death, time="time", pid="pid", status="status", witnesses="witnesses")
        self.sample_t = template(self.sample, time="time", processes="processes")
        self.reading_t = template(reading, pid="pid", rss_bytes="rss", rss_anon_bytes="anon",
                                  rss_file_bytes="file", vm_hwm_bytes="hwm")
        self.exit0 = dumps(self.death["status"])
        self.killed = dumps(SIGKILL_STATUS)
        self.lines = 0

    def write(self, line):
        self.out.write(line)
        self.out.write("\n")
        self.lines += 1

    def process_line(self, t, pid, ppid, argv_json, comm, ticks, seen_by):
        self.write(self.process_t.format(time=f"{t:.6f}", pid=pid, ppid=ppid, nspid=f"[{pid}]", argv=argv_json,
                                         comm=json.dumps(comm), ticks=ticks, seen_by=json.dumps(seen_by)))

    def death_line(self, t, pid, killed, witness):
        self.write(self.death_t.format(time=f"{t:.6f}", pid=pid, status=self.killed if killed else self.exit0,
                                       witnesses=f'["{witness}"]'))

    def sample_line(self, t, pids):
        readings = ",".join(self.reading_t.format(pid=p, rss=rss, anon=rss - 1646592, file=1646592, hwm=rss)
                            for p, rss in pids)
        self.write(self.sample_t.format(time=f"{t:.6f}", processes=f"[{readings}]"))


def synthesize(records, reading, processes, killed, pid_pool, out_path, seed=1):
    """Writes the churn journal; returns (lines, expected kept processes, pid reuses)."""
    rng = random.Random(seed)
    w_file = open(out_path, "w", buffering=1 << 20)
    w = Writer(records, reading, w_file)
    t0 = float(records["run"]["time"])
    supervisor_pid, job_pid = 4000, 4001
    run = dict(records["run"])
    run.update(time=t0, supervisor_pid=supervisor_pid, job_pid=job_pid, sample_interval_s=TICK_S,
               argv=["torchrun", "--nproc-per-node", "1", "train.py"])
    w.write(dumps(run))
    job_argv = dumps(run["argv"])
    w.process_line(t0 + 0.001, job_pid, supervisor_pid, job_argv, "torchrun", 100, "spawn")
    argv_json = [dumps(a) for a, _ in COMMANDS]
    killed_at = {int((k + 1) * processes / (killed + 1)) for k in range(killed)}

    base = 100000                    # pids base .. base + pid_pool - 1
    next_pid = 0
    live = {}                        # pid -> rss
    seen_pids = set()
    reuses = 0
    events = []                      # heap of (time, seq, kind, pid, killed)
    seq = 0
    next_tick = t0 + TICK_S
    last_death_sample = 0.0
    tick = 0

    def sample(t):
        nonlocal tick
        listed = [(p, rss) for p, rss in live.items()]
        if tick % REFRESH_TICKS == 0:
            listed.insert(0, (job_pid, 512 * 1024 * 1024))
        w.sample_line(t, listed)

    def drain_until(t):
        nonlocal next_tick, last_death_sample, tick, seq
        while True:
            first = events[0][0] if events else float("inf")
            if next_tick <= t and next_tick <= first:
                tick += 1
                sample(next_tick)
                next_tick += TICK_S
                continue
            if first > t:
                return
            when, _, kind, pid, was_killed = heapq.heappop(events)
            if kind == 0:            # the first witness of a death
                w.death_line(when, pid, was_killed, "netlink")
                live.pop(pid, None)
                if not was_killed and rng.random() < 0.5:
                    seq += 1
                    heapq.heappush(events, (when + rng.uniform(10e-6, 50e-6), seq, 1, pid, False))
                if when - last_death_sample >= DEATH_SAMPLE_MIN_S:
                    last_death_sample = when
                    sample(when + 20e-6)
            else:                    # a second witness
                w.death_line(when, pid, False, "subreaper")

    t = t0 + 0.05
    for i in range(processes):
        t += rng.uniform(0.0005, 0.0015)
        drain_until(t)
        for _ in range(pid_pool):
            pid = base + next_pid
            next_pid = (next_pid + 1) % pid_pool
            if pid not in live:
                break
        if pid in seen_pids:
            reuses += 1
        seen_pids.add(pid)
        c = rng.randrange(len(COMMANDS))
        w.process_line(t, pid, job_pid, argv_json[c], COMMANDS[c][1], 200 + i // 10, "netlink-fork")
        live[pid] = 1646592 + rng.randrange(1, 64) * 256 * 1024
        seq += 1
        heapq.heappush(events, (t + rng.uniform(0.0005, 0.004), seq, 0, pid, i in killed_at))
    t_end = max(t, events[-1][0] if events else t) + 0.5
    drain_until(t_end)
    status = records["end"]["job_status"]
    w.death_line(t_end + 0.001, job_pid, False, "waitpid")
    w.death_line(t_end + 0.0011, job_pid, False, "netlink")
    w.sample_line(t_end + 0.002, [])
    w.write(dumps({**records["end"], "time": t_end + 0.05, "job_status": status}))
    w_file.close()
    # kept whole: the job, the killed ones (none lives 10 s or exits non-zero)
    return w.lines, 1 + killed, reuses


def write_console(run_dir, t0):
    with open(run_dir / "console.log", "w") as f:
        for i in range(100):
            f.write(f"{t0 + 1 + i:.6f} o step {i}: loss 1.{i:03d}\n")


def make_run(ftdiag, jobdir, records, reading, processes, killed, pid_pool, name):
    run_dir = jobdir.path / name / "vm-pid4000"
    run_dir.mkdir(parents=True)
    journal = run_dir / "journal.jsonl"
    lines, kept, reuses = synthesize(records, reading, processes, killed, pid_pool, journal)
    write_console(run_dir, float(records["run"]["time"]))
    return run_dir, journal, lines, kept, reuses


def measure(ftdiag, job, jobdir, run_dir, journal, reps):
    rss_file = jobdir.path / "maxrss.txt"
    out_file = jobdir.path / "out.txt"
    rows = {"baseline": [], "text": [], "json": []}
    sizes = {}
    argvs = {
        "baseline": ["/usr/bin/wc", "-l", journal],
        "text": [ftdiag, "analyze", run_dir],
        "json": [ftdiag, "analyze", run_dir, "--format", "json"],
    }
    for _ in range(reps):
        for name, argv in argvs.items():
            r = b.spawn_and_wait([job, "maxrss", rss_file, *argv], stdout=out_file)
            b.check_ok(r, " ".join(map(str, argv)))
            rows[name].append((r.wall_s, int(rss_file.read_text()) / 1024, r.total_cpu_s))
            sizes[name] = out_file.stat().st_size
            if name == "json":
                report = json.loads(out_file.read_text())
            if name == "text":
                text = out_file.read_text()
    med = {name: tuple(b.median([row[i] for row in v]) for i in range(3)) for name, v in rows.items()}
    return med, sizes, report, text


def check_report(report, processes, kept):
    run = report["evidence"]["hosts"][0]["runs"][0]
    whole = len(run["processes"])
    summarised = sum(s["count"] for s in run["process_summary"])
    killed = sum(1 for p in run["processes"] if p.get("death") and (p["death"].get("status") or {}).get("signal"))
    return {"kept": whole, "summarised": summarised, "killed_kept": killed,
            "timeline": len(run["timeline"]), "summary_commands": len(run["process_summary"]),
            "verdict": report["verdict"]["cause"],
            "ok": whole == kept and whole + summarised == processes + 1}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--build", help="CMake build folder (default: $FTDIAG_BUILD or build/default)")
    parser.add_argument("--reps", type=int, default=3, help="rounds of baseline/text/json (median)")
    parser.add_argument("--processes", type=int, default=220000, help="short-lived processes (default 220000)")
    parser.add_argument("--killed", type=int, default=5, help="of them killed by SIGKILL (default 5)")
    parser.add_argument("--pid-pool", type=int, default=30000, help="pids handed out in turn (default 30000)")
    parser.add_argument("--small-fraction", type=float, default=0.1,
                        help="also measure a journal of this fraction of --processes (0: skip; default 0.1)")
    parser.add_argument("--keep", action="store_true", help="keep the journals (their folder is printed)")
    args = parser.parse_args()
    ftdiag, job = b.binaries(b.build_dir(args.build))
    jobdir = Scratch()
    cases = [args.processes]
    if args.small_fraction > 0:
        cases.insert(0, max(1000, int(args.processes * args.small_fraction)))
    print(f"churn_readback: `ftdiag analyze` of a churning job's journal ({args.reps} rounds, "
          f"`wc -l` as baseline; target peak RSS <= {TARGET_RSS_MIB:g} MiB)")
    try:
        records, reading = real_records(ftdiag, jobdir)
        peaks = {}
        for processes in cases:
            name = f"churn{processes}"
            run_dir, journal, lines, kept, reuses = make_run(ftdiag, jobdir, records, reading, processes,
                                                            args.killed, args.pid_pool, name)
            size = journal.stat().st_size
            med, sizes, report, text = measure(ftdiag, job, jobdir, run_dir, journal, args.reps)
            check = check_report(report, processes, kept)
            (bw, brss, bc), (tw, trss, tc), (jw, jrss, jc) = med["baseline"], med["text"], med["json"]
            peaks[processes] = (trss, jrss)
            print(f"  {processes} processes ({reuses} pid reuses), journal {size / 1e6:.1f} MB in {lines} lines:")
            print(f"    {'':9} {'wall':>9} {'x wc':>6} {'MB/s':>6} {'CPU':>9} {'x wc':>6} {'CPU MB/s':>8} "
                  f"{'peak RSS':>10} {'output':>10}")
            for label, (wall, rss, cpu) in (("wc -l", med["baseline"]), ("text", med["text"]), ("json", med["json"])):
                key = {"wc -l": "baseline"}.get(label, label)
                print(f"    {label:9} {b.fmt_s(wall):>9} {wall / bw:6.1f} {size / wall / 1e6:6.0f} "
                      f"{b.fmt_s(cpu):>9} {cpu / max(bc, 1e-3):6.1f} {size / max(cpu, 1e-3) / 1e6:8.0f} "
                      f"{rss:7.1f} MiB {sizes[key] / 1e3:7.1f} kB")
            print(f"    report: {check['kept']} processes kept whole ({check['killed_kept']} killed), "
                  f"{check['summarised']} summarised in {check['summary_commands']} command(s), "
                  f"{check['timeline']} timeline points, verdict {check['verdict']}"
                  f"{'' if check['ok'] else '  << UNEXPECTED (expected ' + str(kept) + ' kept)'}")
            for verdict_line in (l for l in text.splitlines() if l.startswith("ftdiag verdict:")):
                print(f"    {verdict_line}")
            over = [f for f, rss in (("text", trss), ("json", jrss)) if rss > TARGET_RSS_MIB]
            if over:
                print(f"    << peak RSS over {TARGET_RSS_MIB:g} MiB: {', '.join(over)}")
            b.result(f"churn_readback_{processes}", journal_MB=size / 1e6, lines=lines,
                     text_s=tw, json_s=jw, wc_s=bw, text_ratio_vs_wc=tw / bw, json_ratio_vs_wc=jw / bw,
                     text_cpu_s=tc, json_cpu_s=jc, wc_cpu_s=bc,
                     text_rss_MiB=trss, json_rss_MiB=jrss, wc_rss_MiB=brss,
                     json_output_kB=sizes["json"] / 1e3, text_output_kB=sizes["text"] / 1e3,
                     kept=check["kept"], summarised=check["summarised"],
                     within_target="yes" if not over else "no")
            if not args.keep:
                shutil.rmtree(run_dir.parent)
        if len(cases) == 2:
            (s, (st, sj)), (l, (lt, lj)) = sorted(peaks.items())
            print(f"  peak RSS growth from {s} to {l} processes: text {lt - st:+.1f} MiB ({lt / st:.2f}x), "
                  f"json {lj - sj:+.1f} MiB ({lj / sj:.2f}x)")
            b.result("churn_readback_growth", processes_ratio=l / s, text_rss_ratio=lt / st, json_rss_ratio=lj / sj)
    finally:
        if args.keep:
            print(f"  journals kept under {jobdir.path}")
        else:
            jobdir.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
