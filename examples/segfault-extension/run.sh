#!/usr/bin/env bash
# A Python job whose native extension crashes (SIGSEGV through a null
# pointer), under `ftdiag run`: the verdict names the extension's function
# and file:line, with the Python frames that called it.
source "$(dirname "$0")/../setup.sh"
out=examples/output/segfault-extension
rm -rf "$out" && mkdir -p "$out"
cc -g -O0 -fPIC -shared -o "$out/libtokenizer_ext.so" examples/segfault-extension/tokenizer_ext.c
echo "== ftdiag run (the extension reads through a null pointer at step 4)"
set +e
"$FTDIAG" run --job-dir "$out/job" -- /usr/bin/python3 examples/segfault-extension/train.py "$out/libtokenizer_ext.so"
echo "== the job's exit status as the shell saw it: $?"
set -e
echo
echo "== ftdiag analyze $out/job"
"$FTDIAG" analyze "$out/job"
