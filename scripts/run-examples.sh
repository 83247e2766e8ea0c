#!/usr/bin/env bash
# Runs every bundled example the way the README says, then checks that
# `ftdiag analyze` of what each left names the cause it demonstrates. An
# example that cannot run on this machine exits 77 and is reported as
# skipped, never as passed.
set -uo pipefail
cd "$(dirname "$0")/.."

failed=0
check() {
  local script=$1 out=$2 expected=$3 log status cause
  log=$(mktemp)
  "$script" >"$log" 2>&1
  status=$?
  if [ "$status" -eq 77 ]; then
    echo "SKIP  $script: $(tail -1 "$log")"
    rm -f "$log"
    return
  fi
  if [ "$status" -ne 0 ]; then
    echo "FAIL  $script exited with $status:"; tail -30 "$log"; failed=1; rm -f "$log"; return
  fi
  cause=$(build/default/ftdiag analyze "$out" --format json |
          /usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["verdict"]["cause"])')
  if [ "$cause" = "$expected" ]; then
    echo "ok    $script: $cause"
  else
    echo "FAIL  $script: the verdict is $cause, not $expected:"; tail -40 "$log"; failed=1
  fi
  rm -f "$log"
}

if /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  check examples/run.sh examples/output/torch-checkpoint-oom host-oom-checkpoint-save
else
  check examples/run.sh examples/output/oom-at-checkpoint host-oom-checkpoint-save
fi
check examples/segfault-extension/run.sh examples/output/segfault-extension/job framework-bug-segfault
check examples/shm-bus-error/run.sh examples/output/shm-bus-error shm-exhausted
check examples/cuda-driver-mismatch/run.sh examples/output/cuda-driver-mismatch cuda-driver-mismatch
exit "$failed"
