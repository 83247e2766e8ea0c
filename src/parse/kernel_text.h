// Small text helpers shared by the kernel-log parsers: numbers as the kernel
// prints them, trimming, and calendar arithmetic. All total: a value that
// does not parse (or overflows) is nullopt, never an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftdiag::parse::text {

inline bool is_digit(char c) { return c >= '0' && c <= '9'; }
inline bool is_space(char c) { return c == ' ' || c == '\t'; }
std::optional<int> hex_digit(char c);

std::string_view trim(std::string_view s);
std::string_view trim_left(std::string_view s);
std::string_view trim_right(std::string_view s);

// Takes `prefix` off the front of `s` when it is there.
bool consume(std::string_view& s, std::string_view prefix);

// Leading decimal digits of `s` (after an optional '-' for the signed
// forms), consumed; nullopt when there are none or they overflow.
std::optional<std::uint64_t> take_u64(std::string_view& s);
std::optional<std::int64_t> take_i64(std::string_view& s);
std::optional<int> take_int(std::string_view& s);
// Leading hex digits, with an optional "0x".
std::optional<std::uint64_t> take_hex(std::string_view& s);

// The whole of `s` as a number; nullopt when anything else is there.
std::optional<std::uint64_t> to_u64(std::string_view s);
std::optional<int> to_int(std::string_view s);
std::optional<std::uint64_t> to_hex(std::string_view s);

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
