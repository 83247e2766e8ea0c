// Wall-clock time as seconds since the Unix epoch (microsecond resolution),
// the unit of every timestamp in the journal and the console log.
#pragma once

#include <time.h>

namespace ftdiag {

inline double wall_clock_now() {
  timespec ts{};
  ::clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// The wall clock of the machine's boot, by the monotonic clock (which the
// kernel log's printk stamps and the tracer's "mono" clock follow): a stamp
// of `s` seconds since boot happened at boot_wall_time() + s. Two clock
// reads apart: microseconds of error.
inline double boot_wall_time() {
  timespec mono{};
  ::clock_gettime(CLOCK_MONOTONIC, &mono);
  const double now = wall_clock_now();
  return now - (static_cast<double>(mono.tv_sec) + static_cast<double>(mono.tv_nsec) / 1e9);
}

}  // namespace ftdiag
