#!/usr/bin/env bash
# Builds what the benchmarks need (unless --no-build) and runs them all:
# sampler_cost, overhead.py, netlink_cost.py, peak_rss.py, journal_growth.py, readback.py, journal_parse and
# relay_throughput.py, kernel_log_scan.py, line_events, analyze_logs.py and analyze_ranks.py. Prints each one's report, then a summary of their RESULT lines. See bench/README.md.
#
# usage: bench/run_all.sh [--quick] [--no-build] [--build DIR] [--log FILE]
#   --quick     shorter runs (a smoke test of the benchmarks, not figures to quote)
#   --no-build  use the binaries already in the build folder
#   --build     CMake build folder (default: $FTDIAG_BUILD or build/default)
#   --log       where the full output goes as well (default: a file in ${TMPDIR:-/tmp})
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
build="${FTDIAG_BUILD:-$repo/build/default}"
quick=0
do_build=1
log=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --no-build) do_build=0 ;;
    --build) build="$2"; shift ;;
    --log) log="$2"; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "run_all.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
build="$(realpath -m "$build")"
log="${log:-${TMPDIR:-/tmp}/ftdiag-bench-$(date +%Y%m%d-%H%M%S).log}"

if [[ $do_build -eq 1 ]]; then
  if [[ ! -f "$build/build.ninja" && ! -f "$build/Makefile" ]]; then
    if [[ "$build" == "$repo/build/default" ]]; then
      (cd "$repo" && cmake --preset default)
    else
      cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFTDIAG_BUILD_BENCH=ON
    fi
  fi
  cmake --build "$build" --target ftdiag bench_job sampler_cost journal_parse kernel_log_scan line_events
fi
for binary in "$build/ftdiag" "$build/bench/bench_job" "$build/bench/sampler_cost" "$build/bench/journal_parse"; do
  [[ -x "$binary" ]] || { echo "run_all.sh: $binary is missing (build first, or drop --no-build)" >&2; exit 1; }
done

if [[ $quick -eq 1 ]]; then
  sampler_args=(--reps 100)
  overhead_args=(--pairs 5 --cpu-seconds 1 --idle-seconds 4 --children 100 --foreign 1000 --lines 200000)
  netlink_args=(--rounds 1 --processes 500)
  peak_args=(--lines 500 --hold 1)
  growth_args=(--seconds 14 --window 10)
  readback_args=(--reps 1 --case 1:1 --case 100:0.1 --case 100:0.1:busy)
  journal_parse_args=(--size-mb 30 --reps 1 --skip-nlohmann)
else
  sampler_args=()
  overhead_args=()
  netlink_args=()
  peak_args=()
  growth_args=()
  readback_args=()
  journal_parse_args=(--size-mb 200 --reps 3 --skip-nlohmann)
fi

export FTDIAG_BUILD="$build"
{
  echo "ftdiag benchmarks, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "machine: $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')), $(awk '/MemTotal/ {printf "%.1f GiB", $2/1048576}' /proc/meminfo), kernel $(uname -r)"
  echo "source: ${FTDIAG_SOURCE_ID:-$(git -C "$repo" describe --always --dirty 2>/dev/null || echo unknown)}; build: $build"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "### bench/sampler_cost ${sampler_args[*]:-}"
  "$build/bench/sampler_cost" "${sampler_args[@]}"
  echo
  echo "### bench/overhead.py ${overhead_args[*]:-}"
  python3 "$here/overhead.py" "${overhead_args[@]}"
  echo
  echo "### bench/netlink_cost.py ${netlink_args[*]:-}"
  python3 "$here/netlink_cost.py" "${netlink_args[@]}"
  if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1 && command -v setpriv >/dev/null; then
    # As root ftdiag filters the host's other processes out in the kernel (eBPF); as a user it cannot.
    echo
    echo "### bench/netlink_cost.py --user nobody ${netlink_args[*]:-}"
    python3 "$here/netlink_cost.py" --user nobody "${netlink_args[@]}"
  fi
  echo
  echo "### bench/peak_rss.py ${peak_args[*]:-}"
  python3 "$here/peak_rss.py" "${peak_args[@]}"
  echo
  echo "### bench/journal_growth.py ${growth_args[*]:-}"
  python3 "$here/journal_growth.py" "${growth_args[@]}"
  echo
  echo "### bench/readback.py ${readback_args[*]:-}"
  python3 "$here/readback.py" "${readback_args[@]}"
  echo
  echo "### bench/journal_parse ${journal_parse_args[*]}"
  "$build/bench/journal_parse" "${journal_parse_args[@]}"
  echo; echo "### bench/relay_throughput.py"; python3 "$here/relay_throughput.py" $( ((quick)) && echo --quick )
  echo; echo "### bench/kernel_log_scan.py"
  python3 "$here/kernel_log_scan.py" --build "$build" $( ((quick)) && echo --lines 100000 --reps 1 )
  echo; echo "### bench/line_events"
  "$build/bench/line_events" $( ((quick)) && echo --rounds 3 --lines 20000 )
  echo; echo "### bench/analyze_logs.py"
  python3 "$here/analyze_logs.py" --build "$build" $( ((quick)) && echo --size-mb 100 --reps 1 )
  echo; echo "### bench/analyze_ranks.py"
  python3 "$here/analyze_ranks.py" --build "$build" $( ((quick)) && echo --seconds 5 --reps 1 )
  echo
  echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
} 2>&1 | tee "$log"

echo
echo "================ summary ================"
grep '^RESULT ' "$log" | sed 's/^RESULT //' | while read -r name rest; do
  printf '%-22s %s\n' "$name" "$rest"
done
echo "full output: $log"
