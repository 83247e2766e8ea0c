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

summary=()

# A test that cannot run here exits 77 and ctest lists it as skipped, never as
# passed; the count of each preset is printed again at the end.
run_preset() {
  local preset=$1 log
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset: test"
  log=$(mktemp)
  local status=0
  ctest --preset "$preset" --timeout 600 2>&1 | tee "$log" || status=$?
  local total skipped
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  skipped=$(grep -c '(Skipped)$' "$log" || true)
  summary+=("$preset: ${total:-?} tests, ${skipped} skipped (they cannot run on this machine; listed above)")
  rm -f "$log"
  return "$status"
}

run_preset default
if [ -z "${FTDIAG_SKIP_SANITIZERS:-}" ]; then
  run_preset debug
fi
echo "== summary"
printf '%s\n' "${summary[@]}"
