// Log-line timestamps from arbitrary bytes: the reader must never crash,
// never read past the stamp it reports, and only return times it validated.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/logs/log_timestamp.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto stamp = ftdiag::parse::read_log_timestamp(line);
  if (!stamp) return 0;
  if (stamp->end == 0 || stamp->end > line.size()) __builtin_trap();
  if (stamp->month < 1 || stamp->month > 12 || stamp->day < 1 || stamp->day > 31) __builtin_trap();
  if (!(stamp->seconds_of_day >= 0 && stamp->seconds_of_day < 86401)) __builtin_trap();
  if (!std::isfinite(stamp->seconds)) __builtin_trap();
  // The year 9999 bounds every accepted stamp (offsets move it by hours only).
  if (!stamp->month_day_only && (stamp->seconds < -2209075200.0 - 86400 || stamp->seconds > 253402300800.0 + 86400)) {
    __builtin_trap();
  }
  if (stamp->month_day_only && ftdiag::parse::seconds_in_year(*stamp, 2000) == std::nullopt) __builtin_trap();
  return 0;
}
