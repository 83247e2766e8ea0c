#!/usr/bin/env bash
# Sets up ftdiag, then runs the bundled example: a two-rank "training" job
# whose checkpoint save is OOM-killed by its memory cgroup (512 MiB), under
# `ftdiag run`, followed by `ftdiag analyze` of the record.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build build/default --target ftdiag

out=examples/output/oom-at-checkpoint
rm -rf "$out"
echo "== ftdiag run (a job killed at its first checkpoint save; 512 MiB cgroup limit)"
set +e
scripts/with-memory-limit.sh 512M -- \
  build/default/ftdiag run --job-dir "$out" --interval 0.1 -- /usr/bin/python3 examples/oom-at-checkpoint/launch.py
status=$?
set -e
if [ "$status" -eq 77 ]; then
  echo "The example needs a memory cgroup (run as root on Linux with cgroup v1 or v2)." >&2
  exit 77
fi
echo "== the job's exit status as the shell saw it: $status"
echo
echo "== ftdiag analyze $out"
build/default/ftdiag analyze "$out"
