#!/usr/bin/env bash
# The recipes (examples/recipes/) cannot run here (a cluster, GPUs, frameworks
# this repository does not ship): each is checked for syntax instead, and for
# wrapping its launch in `ftdiag run`.
set -uo pipefail
cd "$(dirname "$0")/../examples/recipes"
status=0
for f in *.sh *.sbatch; do
  if ! bash -n "$f"; then echo "FAIL  $f: not valid bash"; status=1; continue; fi
  if ! grep -q 'ftdiag run' "$f"; then echo "FAIL  $f: does not wrap its launch in ftdiag run"; status=1; continue; fi
  echo "ok    $f (syntax only: it needs a cluster or GPUs)"
done
for f in *.yaml; do
  if ! /usr/bin/python3 - "$f" <<'PY'
import sys, yaml
docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
command = docs[0]["spec"]["template"]["spec"]["containers"][0]["command"]
assert command[:2] == ["ftdiag", "run"], command
PY
  then echo "FAIL  $f: not a valid manifest wrapping ftdiag run"; status=1; continue; fi
  echo "ok    $f (syntax only: it needs a Kubernetes cluster)"
done
exit "$status"
