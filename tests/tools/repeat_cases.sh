#!/bin/sh
# Runs each doctest case of BINARY whose name matches PATTERN RUNS more
# times, one process per run, and fails at the first run that fails: the
# cases check their verdicts, so a pass every time is the same verdict every
# time. Exits 77 (skipped) when a case skips, as ctest's SKIP_RETURN_CODE.
#
#   repeat_cases.sh RUNS BINARY PATTERN
set -u
runs=$1
binary=$2
pattern=$3
# doctest's filters split at commas and read * and ? as wildcards: escape
# them so that each name matches itself alone.
escape() { printf '%s' "$1" | sed -e 's/[,*?]/\\&/g'; }
log=$(mktemp)
names=$("$binary" --list-test-cases --test-case="$pattern" --no-version 2>/dev/null |
  grep -v '^\[doctest\]' | grep -v '^=\+$' | sed '/^$/d')
if [ -z "$names" ]; then
  echo "no case matches '$pattern'" >&2
  exit 1
fi
echo "$names" | while IFS= read -r name; do
  run=1
  while [ "$run" -le "$runs" ]; do
    start=$(date +%s)
    "$binary" --test-case="$(escape "$name")" --no-version >"$log" 2>&1
    rc=$?
    if [ "$rc" -eq 77 ]; then
      echo "skipped: $name"
      rm -f "$log"
      exit 77
    fi
    if [ "$rc" -ne 0 ]; then
      cat "$log"
      echo "run $run of $runs failed: $name" >&2
      rm -f "$log"
      exit 1
    fi
    echo "run $run of $runs passed ($(( $(date +%s) - start )) s): $name"
    run=$((run + 1))
  done
done
status=$?
rm -f "$log"
exit "$status"
