#include "parse/kernel_text.h"

#include <ctime>
#include <limits>

namespace ftdiag::parse::text {

std::optional<int> hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return std::nullopt;
}

std::string_view trim_left(std::string_view s) {
  while (!s.empty() && (is_space(s.front()) || s.front() == '\n')) s.remove_prefix(1);
  return s;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (is_space(s.back()) || s.back() == '\n')) s.remove_suffix(1);
  return s;
}

std::string_view trim(std::string_view s) { return trim_right(trim_left(s)); }

bool consume(std::string_view& s, std::string_view prefix) {
  if (!s.starts_with(prefix)) return false;
  s.remove_prefix(prefix.size());
  return true;
}

std::optional<std::uint64_t> take_u64(std::string_view& s) {
  std::size_t i = 0;
  std::uint64_t value = 0;
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  for (; i < s.size() && is_digit(s[i]); ++i) {
    const auto digit = static_cast<std::uint64_t>(s[i] - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  if (i == 0) return std::nullopt;
  s.remove_prefix(i);
  return value;
}

std::optional<std::int64_t> take_i64(std::string_view& s) {
  std::string_view rest = s;
  const bool negative = consume(rest, "-");
  auto magnitude = take_u64(rest);
  if (!magnitude || *magnitude > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  s = rest;
  const auto value = static_cast<std::int64_t>(*magnitude);
  return negative ? -value : value;
}

std::optional<int> take_int(std::string_view& s) {
  std::string_view rest = s;
  auto value = take_i64(rest);
  if (!value || *value > std::numeric_limits<int>::max() || *value < std::numeric_limits<int>::min()) {
    return std::nullopt;
  }
  s = rest;
  return static_cast<int>(*value);
}

std::optional<std::uint64_t> take_hex(std::string_view& s) {
  std::string_view rest = s;
  if (!consume(rest, "0x")) consume(rest, "0X");
  std::size_t i = 0;
  std::uint64_t value = 0;
  for (; i < rest.size(); ++i) {
    auto digit = hex_digit(rest[i]);
    if (!digit) break;
    if (value >> 60) return std::nullopt;  // a 17th significant digit
    value = value * 16 + static_cast<std::uint64_t>(*digit);
  }
  if (i == 0) return std::nullopt;
  rest.remove_prefix(i);
  s = rest;
  return value;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  auto value = take_u64(s);
  return value && s.empty() ? value : std::nullopt;
}

std::optional<int> to_int(std::string_view s) {
  auto value = take_int(s);
  return value && s.empty() ? value : std::nullopt;
}

std::optional<std::uint64_t> to_hex(std::string_view s) {
  auto value = take_hex(s);
  return value && s.empty() ? value : std::nullopt;
}

std::optional<std::int64_t> seconds_to_us(std::string_view s) {
  auto whole = take_u64(s);
  if (!whole || *whole > 9'000'000'000'000ULL) return std::nullopt;
  std::int64_t us = static_cast<std::int64_t>(*whole) * 1'000'000;
  if (!consume(s, ".")) return s.empty() ? std::optional(us) : std::nullopt;
  std::int64_t scale = 100'000;
  for (; !s.empty() && is_digit(s.front()); s.remove_prefix(1)) {
    us += (s.front() - '0') * scale;
    scale /= 10;
  }
  return s.empty() ? std::optional(us) : std::nullopt;
}

std::int64_t days_from_civil(int year, unsigned month, unsigned day) {
  year -= month <= 2;
  const std::int64_t era = (year >= 0 ? year : year - 399) / 400;
  const auto yoe = static_cast<unsigned>(year - era * 400);
  const unsigned doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<unsigned> month_from_name(std::string_view name) {
  static constexpr std::string_view names[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (unsigned i = 0; i < 12; ++i) {
    if (name == names[i]) return i + 1;
  }
  return std::nullopt;
}

std::optional<double> local_to_epoch(int year, unsigned month, unsigned day, int hour, int minute, int second) {
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = static_cast<int>(month) - 1;
  tm.tm_mday = static_cast<int>(day);
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;  // let the zone's rules decide
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<double>(t);
}

}  // namespace ftdiag::parse::text
