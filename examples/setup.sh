# Sourced by each example's run.sh: installs what ftdiag needs (the first
# time), then configures and builds ftdiag with its probes (the crash
# handler, the Python probe, the GPU probe) in build/default. Leaves the
# shell in the project's root with FTDIAG set to the binary.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
scripts/install-deps.sh
cmake --preset default >/dev/null
cmake --build build/default --target ftdiag "$@"
FTDIAG=build/default/ftdiag
