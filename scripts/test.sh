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

# Each phase's wall time is printed as it ends and again in the summary, so a
# slow CI run says where its time went.
phase_times=()
timed() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  phase_times+=("$(printf '%-22s %5d s' "$name" $((SECONDS - start)))")
  echo "== $name: $((SECONDS - start)) s"
  return "$status"
}

print_phase_times() {
  echo "== phase times"
  printf '%s\n' "${phase_times[@]}"
}
# Printed however the script ends, so a failed run also says where its time went.
trap print_phase_times EXIT

timed install-deps scripts/install-deps.sh --tests

summary=()

# A test that cannot run here exits 77 and ctest lists it as skipped, never as
# passed; the count of each preset is printed again at the end.
build_preset() {
  cmake --preset "$1" >/dev/null && cmake --build --preset "$1"
}

test_preset() {
  # Tests that need the machine to themselves are RUN_SERIAL (tests/CMakeLists.txt).
  ctest --preset "$1" --timeout 600 --parallel "$(nproc)" 2>&1 | tee "$2"
}

run_preset() {
  local preset=$1 log
  echo "== $preset: configure and build"
  timed "$preset build" build_preset "$preset"
  echo "== $preset: test"
  log=$(mktemp)
  local status=0
  timed "$preset test" test_preset "$preset" "$log" || status=$?
  local total skipped
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -1)
  skipped=$(grep -c '(Skipped)$' "$log" || true)
  summary+=("$preset: ${total:-?} tests, ${skipped} skipped (they cannot run on this machine; listed above)")
  rm -f "$log"
  return "$status"
}

run_preset default
# Every bundled example, as the README runs it, with the cause each shows.
timed examples scripts/run-examples.sh
# The .deb, installed with apt into a fresh Debian 12 root, diagnoses the example.
status=0
timed package scripts/test-deb.sh || status=$?
[ "$status" -eq 0 ] || [ "$status" -eq 77 ] || exit "$status"
if [ -z "${FTDIAG_SKIP_SANITIZERS:-}" ]; then
  run_preset debug
fi
echo "== summary"
printf '%s\n' "${summary[@]}"
