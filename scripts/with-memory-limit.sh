#!/usr/bin/env bash
# Runs a command inside a fresh memory cgroup with a hard limit, the way a
# container or a Slurm step would, and removes the cgroup afterwards.
#
#   scripts/with-memory-limit.sh 512M -- CMD [ARGS...]
#
# Works with cgroup v1 (the memory hierarchy) and cgroup v2 (memory.max).
# Needs root (or a delegated cgroup). Exits 77 when no cgroup can be made, so
# callers can tell "skipped" from "failed".
set -euo pipefail

limit=${1:?usage: with-memory-limit.sh LIMIT -- CMD...}
shift
[ "${1:-}" = "--" ] && shift
[ $# -gt 0 ] || { echo "with-memory-limit: no command" >&2; exit 2; }

to_bytes() {
  local v=$1
  case $v in
    *G) echo $(( ${v%G} * 1024 * 1024 * 1024 )) ;;
    *M) echo $(( ${v%M} * 1024 * 1024 )) ;;
    *K) echo $(( ${v%K} * 1024 )) ;;
    *) echo "$v" ;;
  esac
}
bytes=$(to_bytes "$limit")
name="ftdiag-limit-$$"

v1_path=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ {print $3}' /proc/self/cgroup)
if [ -n "$v1_path" ] && [ -d /sys/fs/cgroup/memory ]; then
  cg="/sys/fs/cgroup/memory${v1_path%/}/$name"
  mkdir "$cg" 2>/dev/null || { echo "with-memory-limit: cannot create $cg (needs root)" >&2; exit 77; }
  echo "$bytes" > "$cg/memory.limit_in_bytes"
  [ -e "$cg/memory.memsw.limit_in_bytes" ] && echo "$bytes" > "$cg/memory.memsw.limit_in_bytes" 2>/dev/null || true
elif [ -f /sys/fs/cgroup/cgroup.controllers ] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
  v2_path=$(awk -F: '$1 == "0" {print $3}' /proc/self/cgroup)
  parent="/sys/fs/cgroup${v2_path%/}"
  cg="$parent/$name"
  mkdir "$cg" 2>/dev/null || { echo "with-memory-limit: cannot create $cg (needs root or delegation)" >&2; exit 77; }
  grep -qw memory "$parent/cgroup.subtree_control" 2>/dev/null || echo +memory > "$parent/cgroup.subtree_control" 2>/dev/null || {
    rmdir "$cg"; echo "with-memory-limit: cannot enable the memory controller in $parent" >&2; exit 77; }
  echo "$bytes" > "$cg/memory.max"
  [ -e "$cg/memory.swap.max" ] && echo 0 > "$cg/memory.swap.max" || true
else
  echo "with-memory-limit: no memory cgroup controller on this machine" >&2
  exit 77
fi

cleanup() { rmdir "$cg" 2>/dev/null || true; }
trap cleanup EXIT
set +e
( echo "$BASHPID" > "$cg/cgroup.procs" && exec "$@" )
status=$?
set -e
exit $status
