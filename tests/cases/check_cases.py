#!/usr/bin/env python3
"""Runs `ftdiag analyze NNN/job --format json` on every real crash report in
this folder and prints a table of expected and found verdicts.

Each NNN/ holds job/ (only what the user had on disk: console log, kernel
lines, configs, environment reports) and expected.json (`cause`, and
`decidable`: whether the files alone are enough to name it).

Pass: on every decidable case the verdict is the expected cause (an OOM
case labelled container-oom is also met by any host-OOM cause with scope
cgroup); on the others, the expected cause or `unknown`, never a cause of another
family (the host-memory causes are one family) with confidence >= 0.7. A decidable case listed in known-misses.json (with
why it is missed) may miss; it fails once it is met, so the list stays true
and shrinks. Each batch's accuracy is printed: batches are scored when they
arrive, before any recogniser is changed for them (README.md keeps those
first-look scores). `--every N` checks every Nth case only (the sanitized
build's run, where each analysis is ten times slower). Exit 1 on any failure, 2 on a
usage error."""
import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

WRONG_BUT_UNSURE = 0.7
HOST_OOM = {"host-oom-checkpoint-save", "host-oom-model-load", "host-oom-dataloader", "host-oom-offload",
            "host-oom-growth", "host-oom", "container-oom"}


def verdict_of(ftdiag, job):
    run = subprocess.run([ftdiag, "analyze", job, "--format", "json", "--no-host-logs"], capture_output=True, text=True,
                         timeout=120)
    if run.returncode != 0:
        return None, f"exit {run.returncode}: {run.stderr.strip()[:200]}"
    try:
        verdict = json.loads(run.stdout)["verdict"]
    except (ValueError, KeyError) as e:
        return None, f"unreadable report: {e}"
    return verdict, ""


def meets(expected, verdict):
    cause, scope = verdict.get("cause"), verdict.get("scope")
    if cause == expected:
        return True
    return expected == "container-oom" and cause in HOST_OOM and scope == "cgroup"


def batch_of(cases, name):
    with open(os.path.join(cases, name, "expected.json")) as f:
        return json.load(f).get("batch", 1)


def same_family(expected, found):
    """Host-memory causes are one family (they differ by phase); every other cause is its own."""
    return expected == found or (expected in HOST_OOM and found in HOST_OOM)


def main():
    parser = argparse.ArgumentParser(description="Checks ftdiag's verdict on every real crash report.")
    parser.add_argument("ftdiag")
    parser.add_argument("cases")
    parser.add_argument("--batch", type=int, help="only the cases of this batch")
    parser.add_argument("--every", type=int, default=1, metavar="N",
                        help="only every Nth case, in number order (a sanitized ftdiag is ten times slower)")
    args = parser.parse_args()  # a usage error exits 2
    if args.every < 1:
        parser.error("--every needs a count of 1 or more")
    ftdiag, cases, batch = args.ftdiag, args.cases, args.batch
    rows, failures = [], 0
    decidable_total = decidable_right = 0
    known_misses_path = os.path.join(cases, "known-misses.json")
    known_misses = {}
    disputed = {}
    if os.path.isfile(known_misses_path):
        with open(known_misses_path) as f:
            listed = json.load(f)
        known_misses = listed["misses"]
        # Undecidable cases where ftdiag is sure of a cause in another family than the
        # thread's own, unconfirmed conclusion, each with why: shown, not failed, and
        # failed again once the verdict changes.
        disputed = listed.get("disputed", {})
    per_batch = {}
    names = [n for n in sorted(os.listdir(cases)) if os.path.isfile(os.path.join(cases, n, "expected.json"))]
    if batch is not None:
        names = [n for n in names if batch_of(cases, n) == batch]
    names = names[::args.every]
    # The analyses are independent: run one per CPU (a sanitized ftdiag takes a
    # second or more to start).
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        verdicts = list(pool.map(lambda n: verdict_of(ftdiag, os.path.join(cases, n, "job")), names))
    for name, (verdict, problem) in zip(names, verdicts):
        with open(os.path.join(cases, name, "expected.json")) as f:
            expected = json.load(f)
        if verdict is None:
            # A run that gives no verdict is a miss in the score too, never left out of it.
            failures += 1
            if expected["decidable"]:
                decidable_total += 1
                right, total = per_batch.get(expected.get("batch", 1), (0, 0))
                per_batch[expected.get("batch", 1)] = (right, total + 1)
            rows.append((name, expected["cause"], expected["decidable"], "-", "-", "FAIL " + problem))
            continue
        found, confidence = verdict.get("cause"), verdict.get("confidence") or 0
        if expected["decidable"]:
            decidable_total += 1
            met = meets(expected["cause"], verdict)
            decidable_right += met
            right, total = per_batch.get(expected.get("batch", 1), (0, 0))
            per_batch[expected.get("batch", 1)] = (right + met, total + 1)
            if name in known_misses:
                ok = not met
                result = "known miss" if ok else "FAIL (met: remove it from known-misses.json)"
            else:
                ok = met
                result = "ok" if ok else "FAIL"
        else:
            ok = found == "unknown" or same_family(expected["cause"], found) or confidence < WRONG_BUT_UNSURE
            result = "ok" if ok else "FAIL (wrong and sure)"
            if name in disputed:
                result = "disputed" if not ok else "FAIL (no longer disputed: remove it from known-misses.json)"
                ok = not ok
        failures += not ok
        rows.append((name, expected["cause"], expected["decidable"], found, f"{confidence:.2f}", result))
    widths = [max(len(str(r[i])) for r in rows + [("case", "expected", "decidable", "found", "conf", "result")])
              for i in range(6)]
    header = ("case", "expected", "decidable", "found", "conf", "result")
    for row in [header] + rows:
        print("  ".join(str(v).ljust(widths[i]) for i, v in enumerate(row)))
    sample = f" (a sample: one case in {args.every})" if args.every > 1 else ""
    print(f"\ndecidable right: {decidable_right}/{decidable_total}; failures: {failures} of {len(rows)} cases{sample}")
    for batch_number in sorted(per_batch):
        right, total = per_batch[batch_number]
        print(f"batch {batch_number}: {right}/{total} decidable right ({100 * right / total:.0f}%)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
