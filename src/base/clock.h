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

}  // namespace ftdiag
