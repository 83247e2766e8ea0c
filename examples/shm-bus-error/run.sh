#!/usr/bin/env bash
# DataLoader workers in a private mount namespace whose /dev/shm is 32 MiB
# (a container's small default), under `ftdiag run`: a worker dies of
# SIGBUS and the verdict is shm-exhausted, with the size to give /dev/shm.
# Needs root (a mount namespace) and python3-torch.
source "$(dirname "$0")/../setup.sh"
if ! /usr/bin/python3 -c 'import torch' 2>/dev/null; then
  echo "This example needs python3-torch (scripts/install-deps.sh installs it)." >&2
  exit 77
fi
if ! unshare --mount --propagation private /bin/true 2>/dev/null; then
  echo "This example needs root: it mounts a private, small /dev/shm." >&2
  exit 77
fi
out=examples/output/shm-bus-error
rm -rf "$out"
echo "== ftdiag run (DataLoader workers with a 32 MiB /dev/shm)"
set +e
unshare --mount --propagation private /bin/sh -c \
  'mount -t tmpfs -o size=32m tmpfs /dev/shm && exec "$@"' sh \
  "$FTDIAG" run --job-dir "$out" -- /usr/bin/python3 examples/shm-bus-error/workers.py
echo "== the job's exit status as the shell saw it: $?"
set -e
echo
echo "== ftdiag analyze $out"
"$FTDIAG" analyze "$out"
