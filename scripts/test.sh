#!/usr/bin/env bash
# Sets up everything ftdiag needs, builds it, and runs every test: unit tests,
# integration tests on real processes (real OOM kills in memory cgroups when
# run as root), and fuzz-corpus replays. Then the same suites again under
# AddressSanitizer and UBSan (the debug preset).
#
#   scripts/test.sh            # both builds
#   FTDIAG_SKIP_SANITIZERS=1 scripts/test.sh   # the default build only
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/install-deps.sh

run_preset() {
  local preset=$1
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset: test"
  ctest --preset "$preset" --timeout 600
}

run_preset default
if [ -z "${FTDIAG_SKIP_SANITIZERS:-}" ]; then
  run_preset debug
fi
