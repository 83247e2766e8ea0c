#include "parse/kernel/kernel_text.h"

#include <ctime>
#include <limits>

namespace ftdiag::parse::text {

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
