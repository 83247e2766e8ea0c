#include "parse/kernel/kernel_prefix.h"

#include <array>

#include "parse/kernel/kernel_text.h"

namespace ftdiag::parse::detail {
namespace {

using namespace text;

bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

std::optional<int> take_fixed_digits(std::string_view& s, std::size_t count) {
  if (s.size() < count) return std::nullopt;
  int value = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!is_digit(s[i])) return std::nullopt;
    value = value * 10 + (s[i] - '0');
  }
  s.remove_prefix(count);
  return value;
}

// "HH:MM:SS"
bool take_clock(std::string_view& s, int& hour, int& minute, int& second) {
  std::string_view rest = s;
  auto h = take_fixed_digits(rest, 2);
  if (!h || !consume(rest, ":")) return false;
  auto m = take_fixed_digits(rest, 2);
  if (!m || !consume(rest, ":")) return false;
  auto sec = take_fixed_digits(rest, 2);
  if (!sec) return false;
  hour = *h, minute = *m, second = *sec;
  s = rest;
  return true;
}

// Fraction digits after '.' or ',' as seconds.
double take_fraction(std::string_view& s) {
  double fraction = 0, scale = 0.1;
  while (!s.empty() && is_digit(s.front())) {
    fraction += (s.front() - '0') * scale;
    scale /= 10;
    s.remove_prefix(1);
  }
  return fraction;
}

// "<3>" of dmesg -r: facility*8 + level.
bool take_priority(std::string_view& rest, KernelStamp& stamp) {
  std::string_view s = rest;
  if (!consume(s, "<")) return false;
  auto prio = take_u64(s);
  if (!prio || *prio > 1023 || !consume(s, ">")) return false;
  stamp.level = static_cast<int>(*prio & 7);
  stamp.facility = static_cast<int>(*prio >> 3);
  rest = s;
  return true;
}

constexpr std::array<std::string_view, 24> facility_names = {
    "kern",   "user",   "mail",   "daemon", "auth",   "syslog", "lpr",    "news",
    "uucp",   "cron",   "authpriv", "ftp", "res0",   "res1",   "res2",   "res3",
    "local0", "local1", "local2", "local3", "local4", "local5", "local6", "local7"};
constexpr std::array<std::string_view, 8> level_names = {"emerg", "alert", "crit",   "err",
                                                         "warn",  "notice", "info", "debug"};

template <std::size_t N>
std::optional<int> index_of(const std::array<std::string_view, N>& names, std::string_view name) {
  for (std::size_t i = 0; i < N; ++i) {
    if (names[i] == name) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string_view take_padded_name(std::string_view& s) {
  std::size_t end = 0;
  while (end < s.size() && end < 10 && (is_alpha(s[end]) || is_digit(s[end]))) ++end;
  std::string_view name = s.substr(0, end);
  s.remove_prefix(end);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return name;
}

// "kern  :err   : " of dmesg -x.
bool take_decoded_priority(std::string_view& rest, KernelStamp& stamp) {
  std::string_view s = rest;
  auto facility = index_of(facility_names, take_padded_name(s));
  if (!facility || !consume(s, ":")) return false;
  auto level = index_of(level_names, take_padded_name(s));
  if (!level || !consume(s, ":")) return false;
  consume(s, " ");
  stamp.facility = *facility;
  stamp.level = *level;
  rest = s;
  return true;
}

// "Sun Nov 29 07:48:27 2026" inside dmesg -T brackets; the weekday may be
// localised ("Di"), the month must be English for a time to come out.
void read_ctime_stamp(std::string_view inside, KernelStamp& stamp) {
  std::string_view s = trim(inside);
  while (!s.empty() && s.front() != ' ') s.remove_prefix(1);  // weekday
  s = trim_left(s);
  auto month = month_from_name(s.substr(0, 3));
  if (!month || s.size() < 4) return;
  s = trim_left(s.substr(3));
  auto day = take_u64(s);
  int hour = 0, minute = 0, second = 0;
  if (!day || !consume(s, " ") || !take_clock(s, hour, minute, second) || !consume(s, " ")) return;
  auto year = to_int(s);
  if (!year) return;
  stamp.wall_time = local_to_epoch(*year, *month, static_cast<unsigned>(*day), hour, minute, second);
}

// "2026-11-29T07:48:27,674752+00:00", "2024-12-14T17:13:12+0000",
// "2024-05-01T12:00:00.123456Z". `comma` tells dmesg's form (',' before the
// fraction) from the journal's and rsyslog's.
bool take_iso_stamp(std::string_view& rest, KernelStamp& stamp, bool& comma) {
  std::string_view s = rest;
  auto year = take_fixed_digits(s, 4);
  if (!year || !consume(s, "-")) return false;
  auto month = take_fixed_digits(s, 2);
  if (!month || !consume(s, "-")) return false;
  auto day = take_fixed_digits(s, 2);
  int hour = 0, minute = 0, second = 0;
  if (!day || !consume(s, "T") || !take_clock(s, hour, minute, second)) return false;
  double fraction = 0;
  comma = !s.empty() && s.front() == ',';
  if (consume(s, ",") || consume(s, ".")) fraction = take_fraction(s);
  int offset_minutes = 0;
  if (!consume(s, "Z") && !s.empty() && (s.front() == '+' || s.front() == '-')) {
    const int sign = s.front() == '-' ? -1 : 1;
    s.remove_prefix(1);
    auto zh = take_fixed_digits(s, 2);
    consume(s, ":");
    auto zm = take_fixed_digits(s, 2);
    if (!zh || !zm) return false;
    offset_minutes = sign * (*zh * 60 + *zm);
  }
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31) return false;
  const std::int64_t days = days_from_civil(*year, static_cast<unsigned>(*month), static_cast<unsigned>(*day));
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  stamp.wall_time = static_cast<double>(seconds) + fraction;
  rest = s;
  return true;
}

// "Nov 30 02:53:56" (syslog, journalctl short) or "Dec 14 17:13:12.674752"
// (short-precise), read in the local zone of the given year.
bool take_syslog_stamp(std::string_view& rest, KernelStamp& stamp, int year) {
  std::string_view s = rest;
  if (s.size() < 4) return false;
  auto month = month_from_name(s.substr(0, 3));
  if (!month) return false;
  s.remove_prefix(3);
  if (!consume(s, " ")) return false;
  consume(s, " ");  // "Nov  9"
  auto day = take_u64(s);
  int hour = 0, minute = 0, second = 0;
  if (!day || *day > 31 || !consume(s, " ") || !take_clock(s, hour, minute, second)) return false;
  double fraction = consume(s, ".") ? take_fraction(s) : 0;
  auto wall = local_to_epoch(year, *month, static_cast<unsigned>(*day), hour, minute, second);
  if (wall) stamp.wall_time = *wall + fraction;
  rest = s;
  return true;
}

// After a syslog/journal stamp: "host ident[pid]: message", where only
// ident "kernel" is the kernel. `rest` becomes the message.
Rendering take_source(std::string_view& rest, std::string_view& host, KernelStamp& stamp) {
  std::string_view s = trim_left(rest);
  const auto host_end = s.find(' ');
  if (host_end == 0 || host_end == std::string_view::npos || s.substr(0, host_end).ends_with(':')) {
    return Rendering::plain;
  }
  std::string_view after_host = s.substr(host_end + 1);
  std::size_t ident_end = 0;
  while (ident_end < after_host.size() && ident_end < 128 && after_host[ident_end] != ':' &&
         after_host[ident_end] != '[' && after_host[ident_end] != ' ') {
    ++ident_end;
  }
  if (ident_end == 0 || ident_end >= after_host.size() || after_host[ident_end] == ' ') return Rendering::plain;
  std::string_view ident = after_host.substr(0, ident_end);
  std::string_view tail = after_host.substr(ident_end);
  if (tail.front() == '[') {
    const auto close = tail.find("]:");
    if (close == std::string_view::npos || close > 24) return Rendering::plain;
    tail.remove_prefix(close + 1);
  }
  if (!consume(tail, ":")) return Rendering::plain;
  host = s.substr(0, host_end);
  if (ident != "kernel") return Rendering::userspace;
  consume(tail, " ");
  // rsyslog reading /proc/kmsg keeps the printk stamp: "kernel: [  818.356297] ..."
  std::string_view inner = tail;
  if (take_dmesg_bracket(inner, stamp)) tail = inner;
  take_caller_tag(tail, stamp);
  rest = tail;
  return Rendering::stamped;
}

PrefixedLine stamped(std::string_view message, const KernelStamp& stamp) {
  return PrefixedLine{Rendering::stamped, stamp, message, {}};
}

PrefixedLine after_bracket(std::string_view rest, KernelStamp stamp, const PrefixContext& context) {
  take_caller_tag(rest, stamp);
  // journalctl -o short-monotonic: "[  241.674752] host kernel: ..."
  std::string_view source = rest;
  std::string_view host;
  KernelStamp source_stamp = stamp;
  const Rendering rendering = take_source(source, host, source_stamp);
  if (rendering == Rendering::stamped) return PrefixedLine{rendering, source_stamp, source, host};
  if (rendering == Rendering::userspace && !context.known_host.empty() && host == context.known_host) {
    return PrefixedLine{rendering, stamp, source, host};
  }
  return stamped(rest, stamp);
}

PrefixedLine read_starting_with_digit(std::string_view line, const PrefixContext& context) {
  KernelStamp stamp;
  std::string_view rest = line;
  if (take_kmsg_header(rest, stamp)) return PrefixedLine{Rendering::kmsg, stamp, rest, {}};
  bool comma = false;
  if (!take_iso_stamp(rest, stamp, comma)) return PrefixedLine{Rendering::plain, {}, line, {}};
  if (comma) {  // dmesg --time-format iso: the message follows
    consume(rest, " ");
    take_caller_tag(rest, stamp);
    return stamped(rest, stamp);
  }
  PrefixedLine out{Rendering::plain, stamp, rest, {}};
  out.rendering = take_source(out.message, out.host, out.stamp);
  if (out.rendering == Rendering::plain) return PrefixedLine{Rendering::plain, {}, line, {}};
  (void)context;
  return out;
}

PrefixedLine read_starting_with_letter(std::string_view line, const PrefixContext& context) {
  KernelStamp stamp;
  std::string_view rest = line;
  if (take_decoded_priority(rest, stamp)) {  // dmesg -x
    if (take_dmesg_bracket(rest, stamp)) return after_bracket(rest, stamp, context);
    return stamped(rest, stamp);
  }
  if (take_syslog_stamp(rest, stamp, context.year)) {
    PrefixedLine out{Rendering::plain, stamp, rest, {}};
    out.rendering = take_source(out.message, out.host, out.stamp);
    if (out.rendering != Rendering::plain) return out;
  }
  return PrefixedLine{Rendering::plain, {}, line, {}};
}

}  // namespace

bool take_kmsg_header(std::string_view& record, KernelStamp& stamp) {
  std::string_view s = record;
  auto prio = take_u64(s);
  if (!prio || *prio > 1023 || !consume(s, ",")) return false;
  auto seq = take_u64(s);
  if (!seq || !consume(s, ",")) return false;
  auto usec = take_u64(s);
  if (!usec || *usec > (1ULL << 62) || !consume(s, ",")) return false;
  const auto semicolon = s.substr(0, 256).find(';');
  if (semicolon == std::string_view::npos) return false;
  std::string_view fields = s.substr(0, semicolon);  // flag, then optional key=value
  KernelStamp out;
  out.level = static_cast<int>(*prio & 7);
  out.facility = static_cast<int>(*prio >> 3);
  out.sequence = *seq;
  out.monotonic_us = static_cast<std::int64_t>(*usec);
  if (const auto caller = fields.find(",caller="); caller != std::string_view::npos) {
    std::string_view value = fields.substr(caller + 8);
    out.caller = std::string(value.substr(0, value.find(',')));
  }
  stamp = std::move(out);
  record = s.substr(semicolon + 1);
  return true;
}

bool take_caller_tag(std::string_view& rest, KernelStamp& stamp) {
  std::string_view s = rest;
  consume(s, " ");
  if (!consume(s, "[")) return false;
  while (consume(s, " ")) {
  }
  if (s.empty() || (s.front() != 'T' && s.front() != 'C')) return false;
  std::string_view tag = s;
  s.remove_prefix(1);
  auto id = take_u64(s);
  if (!id || !consume(s, "]")) return false;
  stamp.caller = std::string(tag.substr(0, tag.size() - s.size() - 1));
  consume(s, " ");
  rest = s;
  return true;
}

bool take_dmesg_bracket(std::string_view& rest, KernelStamp& stamp) {
  std::string_view s = rest;
  if (!consume(s, "[")) return false;
  const auto close = s.substr(0, 48).find(']');
  if (close == std::string_view::npos) return false;
  std::string_view inside = s.substr(0, close);
  std::string_view number = trim(inside);
  if (number.empty()) return false;
  if (number.front() == '+' || number.front() == '<') {
    // --time-format reltime "[  +0.000016]" and delta "[<    0.000016>]":
    // relative to the previous line, so no stamp of their own. A call
    // trace's "[<ffffffff816861ac>]" is not one.
    number.remove_prefix(1);
    if (number.ends_with('>')) number.remove_suffix(1);
    if (!seconds_to_us(trim(number))) return false;
  } else if (is_digit(number.front())) {
    // Always with a fraction: "[   5165]" is a task-table row, not a stamp.
    auto us = number.find('.') != std::string_view::npos ? seconds_to_us(number) : std::nullopt;
    if (!us) return false;
    stamp.monotonic_us = *us;
  } else if (is_alpha(number.front()) && inside.find(':') != std::string_view::npos) {
    read_ctime_stamp(inside, stamp);
  } else {
    return false;
  }
  s.remove_prefix(close + 1);
  consume(s, " ");
  rest = s;
  return true;
}

PrefixedLine read_prefix(std::string_view line, const PrefixContext& context) {
  if (line.empty()) return {};
  const char first = line.front();
  if (is_digit(first)) return read_starting_with_digit(line, context);
  if (first == '<') {
    KernelStamp stamp;
    std::string_view rest = line;
    if (!take_priority(rest, stamp)) return PrefixedLine{Rendering::plain, {}, line, {}};
    if (take_dmesg_bracket(rest, stamp)) return after_bracket(rest, stamp, context);
    return stamped(rest, stamp);
  }
  if (first == '[') {
    KernelStamp stamp;
    std::string_view rest = line;
    if (take_dmesg_bracket(rest, stamp)) return after_bracket(rest, stamp, context);
    return PrefixedLine{Rendering::plain, {}, line, {}};
  }
  if (first == '-' && line.starts_with("-- ") && text::trim_right(line).ends_with(" --")) {
    return PrefixedLine{Rendering::marker, {}, line, {}};
  }
  if (is_alpha(first)) return read_starting_with_letter(line, context);
  // `grep -r` (or -H) names the file before each line it prints:
  // "/var/log/kern.log:Aug 18 14:30:16 host kernel: [356972.47] ...". The
  // line after the name is read as it would be alone, once.
  if (first == '/') {
    const auto colon = line.find(':');
    const std::string_view after = colon == std::string_view::npos ? std::string_view() : line.substr(colon + 1);
    if (!after.empty() && after.front() != '/' && line.substr(0, colon).find(' ') == std::string_view::npos) {
      PrefixedLine inner = read_prefix(after, context);
      if (inner.rendering != Rendering::plain) return inner;
    }
  }
  return PrefixedLine{Rendering::plain, {}, line, {}};
}

}  // namespace ftdiag::parse::detail
