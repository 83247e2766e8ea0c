#!/usr/bin/env bash
# Installs ftdiag's build and test dependencies from Debian's archive when missing.
# Idempotent: a machine that already has them is left as it is.
# --tests: also what only the tests use (a headless browser for the HTML report).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config clang
  libunwind-dev libdw-dev libelf-dev
  nlohmann-json3-dev libsimdjson-dev doctest-dev libcli11-dev libfmt-dev libre2-dev libyaml-cpp-dev libhyperscan-dev
  python3 util-linux procps
  # eu-stack and gdb: the baselines of bench/symbolize_core (and gdb writes a test's core).
  elfutils gdb
  # A real framework for the examples and the real-job tests (CPU build).
  python3-torch
)
if [ "${1:-}" = "--tests" ]; then
  # Renders the HTML report in a test: a screenshot that is not blank; and a
  # YAML parser for the Kubernetes recipe's syntax check.
  # debootstrap: a fresh Debian root to install the .deb into (scripts/test-deb.sh).
  # A real Slurm for the multi-node tests (tests/slurm/cluster.sh starts its own
  # slurmctld and slurmd nodes under a temporary folder; nothing in /etc is used).
  packages+=(chromium python3-yaml debootstrap slurmctld slurmd slurm-client munge)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "install-deps: installing ${missing[*]}" >&2
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
