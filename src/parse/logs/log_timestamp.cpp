#include "parse/logs/log_timestamp.h"

#include <array>
#include <cstdint>

#include "base/ascii.h"

namespace ftdiag::parse {

namespace {

// A bracketed prefix before the stamp ("[default0]:", "[rank3]: ",
// "[INFO|trainer.py:3388] ") is at most this long; anything longer is text.
constexpr std::size_t kMaxPrefix = 48;
// Leading spaces and NULs (PyTorch's worker handler leaves a NUL) skipped.
constexpr std::size_t kMaxLeading = 16;

// What a stamp printed, before it is turned into seconds.
struct Printed {
  int year = 0;  // 0: not printed
  int month = 0, day = 0, hour = 0, minute = 0;
  double second = 0;
  int offset_seconds = 0;
};

using ascii::is_digit;

// Exactly `count` digits at `pos`.
bool read_number(std::string_view s, std::size_t& pos, int count, int& out) {
  if (pos + static_cast<std::size_t>(count) > s.size()) return false;
  int value = 0;
  for (int i = 0; i < count; ++i) {
    const char c = s[pos + static_cast<std::size_t>(i)];
    if (!is_digit(c)) return false;
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(count);
  out = value;
  return true;
}

bool read_char(std::string_view s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// ",261" (Python logging), ".123456" (ISO, glog), ".833637681" (c10's glog
// with nanoseconds): up to 9 digits.
void read_fraction(std::string_view s, std::size_t& pos, double& second) {
  if (pos + 1 >= s.size() || (s[pos] != '.' && s[pos] != ',') || !is_digit(s[pos + 1])) return;
  ++pos;
  double scale = 0.1;
  for (int i = 0; i < 9 && pos < s.size() && is_digit(s[pos]); ++i, ++pos, scale /= 10) second += scale * (s[pos] - '0');
  // Digits past nanoseconds change nothing; a run of them longer than any clock prints is no stamp.
  for (int i = 0; i < 24 && pos < s.size() && is_digit(s[pos]); ++i) ++pos;
}

// HH:MM:SS with an optional fraction.
bool read_clock(std::string_view s, std::size_t& pos, Printed& out) {
  int second = 0;
  if (!read_number(s, pos, 2, out.hour) || !read_char(s, pos, ':') || !read_number(s, pos, 2, out.minute) ||
      !read_char(s, pos, ':') || !read_number(s, pos, 2, second)) {
    return false;
  }
  out.second = second;
  read_fraction(s, pos, out.second);
  return true;
}

// "Z", "+02:00", "+0200", "-05". Absent is fine (read as UTC).
bool read_offset(std::string_view s, std::size_t& pos, Printed& out) {
  if (read_char(s, pos, 'Z')) return true;
  if (pos >= s.size() || (s[pos] != '+' && s[pos] != '-')) return true;
  const int sign = s[pos] == '-' ? -1 : 1;
  std::size_t at = pos + 1;
  int hours = 0, minutes = 0;
  if (!read_number(s, at, 2, hours)) return true;  // "-" of the message, not an offset
  read_char(s, at, ':');
  if (!read_number(s, at, 2, minutes)) minutes = 0;
  if (hours > 14 || minutes > 59) return false;
  out.offset_seconds = sign * (hours * 3600 + minutes * 60);
  pos = at;
  return true;
}

// 2024-05-08 08:47:31,261 / 2024-05-08T08:47:31.123+02:00
bool read_iso(std::string_view s, std::size_t& pos, Printed& out) {
  if (!read_number(s, pos, 4, out.year) || !read_char(s, pos, '-') || !read_number(s, pos, 2, out.month) ||
      !read_char(s, pos, '-') || !read_number(s, pos, 2, out.day)) {
    return false;
  }
  if (!read_char(s, pos, 'T') && !read_char(s, pos, ' ')) return false;
  return read_clock(s, pos, out) && read_offset(s, pos, out);
}

// 05/08/2024 08:47:31 (logging's "%m/%d/%Y %H:%M:%S" in Hugging Face scripts)
bool read_us_date(std::string_view s, std::size_t& pos, Printed& out) {
  return read_number(s, pos, 2, out.month) && read_char(s, pos, '/') && read_number(s, pos, 2, out.day) &&
         read_char(s, pos, '/') && read_number(s, pos, 4, out.year) && read_char(s, pos, ' ') &&
         read_clock(s, pos, out);
}

// "May  8 08:47:31": the day is space-padded to two columns.
bool read_syslog(std::string_view s, std::size_t& pos, Printed& out) {
  static constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                           "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (pos + 4 > s.size() || s[pos + 3] != ' ') return false;
  const auto name = s.substr(pos, 3);
  for (std::size_t m = 0; m < kMonths.size(); ++m) {
    if (name != kMonths[m]) continue;
    out.month = static_cast<int>(m) + 1;
    pos += 4;
    read_char(s, pos, ' ');  // "May  8" (classic syslog pads the day) or "May 8"
    if (!read_number(s, pos, 2, out.day) && !read_number(s, pos, 1, out.day)) return false;
    return read_char(s, pos, ' ') && read_clock(s, pos, out);
  }
  return false;
}

// glog: severity letter, MMDD, a time with its fraction, a space, then the
// thread id ("W0801 13:23:17.366000 32974 api.py:900]") or, in c10's own
// rendering, the file ("[E1003 18:37:01.833637681 ProcessGroupNCCL.cpp:621]").
bool read_glog(std::string_view s, std::size_t& pos, Printed& out) {
  if (pos >= s.size() || (s[pos] != 'I' && s[pos] != 'W' && s[pos] != 'E' && s[pos] != 'F')) return false;
  ++pos;
  if (!read_number(s, pos, 2, out.month) || !read_number(s, pos, 2, out.day) || !read_char(s, pos, ' ')) return false;
  const std::size_t clock = pos;
  if (!read_clock(s, pos, out) || pos == clock + 8) return false;  // glog always prints the fraction
  return pos + 1 < s.size() && s[pos] == ' ' && s[pos + 1] != ' ';
}

bool is_leap(int year) { return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0; }

int days_in_month(int year, int month) {
  static constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && is_leap(year) ? 29 : kDays[static_cast<std::size_t>(month - 1)];
}

// A yearless stamp is checked against a leap year, so 29 February passes.
bool valid(const Printed& p) {
  if (p.year != 0 && (p.year < 1900 || p.year > 9999)) return false;
  if (p.month < 1 || p.month > 12 || p.day < 1) return false;
  if (p.day > days_in_month(p.year == 0 ? 2000 : p.year, p.month)) return false;
  return p.hour <= 23 && p.minute <= 59 && p.second < 61;  // 60: a leap second
}

// Days from 1970-01-01 to a civil date (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(int y, int m, int d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * static_cast<unsigned>(m > 2 ? m - 3 : m + 9) + 2) / 5 + static_cast<unsigned>(d) - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

LogTimestamp to_stamp(const Printed& p, std::size_t end) {
  LogTimestamp stamp;
  stamp.month_day_only = p.year == 0;
  stamp.month = p.month;
  stamp.day = p.day;
  stamp.seconds_of_day = p.hour * 3600.0 + p.minute * 60.0 + p.second;
  stamp.offset_seconds = p.offset_seconds;
  stamp.end = end;
  if (!stamp.month_day_only) {
    stamp.seconds = static_cast<double>(days_from_civil(p.year, p.month, p.day)) * 86400.0 + stamp.seconds_of_day -
                    p.offset_seconds;
  }
  return stamp;
}

// A stamp must not run on into more digits ("2024-05-08 08:47:3123").
bool ends_cleanly(std::string_view s, std::size_t pos) { return pos >= s.size() || !is_digit(s[pos]); }

// The stamp at `pos`, bare or in brackets ("[...]", "[INFO|...]").
std::optional<LogTimestamp> read_at(std::string_view s, std::size_t pos) {
  const bool bracket = read_char(s, pos, '[');
  if (bracket) {  // LLaMA-Factory: "[INFO|2025-04-30 22:55:57]"
    std::size_t at = pos;
    while (at < s.size() && at - pos < 8 && s[at] >= 'A' && s[at] <= 'Z') ++at;
    if (at > pos && at < s.size() && s[at] == '|') pos = at + 1;
  }
  // Each form reads into its own copy: a form that fails leaves nothing behind.
  using Reader = bool (*)(std::string_view, std::size_t&, Printed&);
  for (const Reader read : {Reader{read_iso}, Reader{read_us_date}, Reader{read_syslog}}) {
    Printed printed;
    std::size_t at = pos;
    if (!read(s, at, printed) || !ends_cleanly(s, at) || !valid(printed)) continue;
    if (bracket && !read_char(s, at, ']')) continue;
    return to_stamp(printed, at);
  }
  // glog runs on after its time: no closing bracket to expect.
  Printed printed;
  std::size_t at = pos;
  if (read_glog(s, at, printed) && valid(printed)) {
    return to_stamp(printed, at);
  }
  return std::nullopt;
}

// The start of the text after a short bracketed prefix, or npos.
std::size_t after_prefix(std::string_view s, std::size_t pos) {
  if (pos >= s.size() || s[pos] != '[') return std::string_view::npos;
  const auto close = s.substr(0, pos + kMaxPrefix).find(']', pos);
  if (close == std::string_view::npos) return std::string_view::npos;
  std::size_t at = close + 1;
  read_char(s, at, ':');
  while (at < s.size() && at - close < 4 && s[at] == ' ') ++at;
  return at;
}

}  // namespace

std::optional<LogTimestamp> read_log_timestamp(std::string_view line) {
  std::size_t pos = 0;
  while (pos < line.size() && pos < kMaxLeading && (line[pos] == ' ' || line[pos] == '\0')) ++pos;
  if (auto stamp = read_at(line, pos)) return stamp;
  const auto rest = after_prefix(line, pos);
  if (rest == std::string_view::npos) return std::nullopt;
  return read_at(line, rest);
}

std::optional<double> seconds_in_year(const LogTimestamp& stamp, int year) {
  if (year < 1900 || year > 9999 || stamp.month < 1 || stamp.month > 12 || stamp.day < 1) return std::nullopt;
  if (stamp.day > days_in_month(year, stamp.month)) return std::nullopt;
  return static_cast<double>(days_from_civil(year, stamp.month, stamp.day)) * 86400.0 + stamp.seconds_of_day -
         stamp.offset_seconds;
}

}  // namespace ftdiag::parse
