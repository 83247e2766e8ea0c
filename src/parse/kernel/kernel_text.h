// Text helpers of the kernel-log parsers, on top of the shared ones
// (base/text.h, visible here as parse::text::trim and so on): the kernel's
// times and calendar arithmetic. All total: a value that does not parse (or
// overflows) is nullopt, never an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "base/text.h"

namespace ftdiag::parse::text {

using namespace ftdiag::text;

// "241.674752" (seconds, any number of fraction digits) as microseconds.
std::optional<std::int64_t> seconds_to_us(std::string_view s);

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(int year, unsigned month, unsigned day);
// "Jan".."Dec" as 1..12.
std::optional<unsigned> month_from_name(std::string_view name);
// Seconds since the epoch of a wall-clock time read in the local zone
// (dmesg -T and syslog print local time without a zone).
std::optional<double> local_to_epoch(int year, unsigned month, unsigned day, int hour, int minute, int second);

}  // namespace ftdiag::parse::text
