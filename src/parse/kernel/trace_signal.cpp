#include "parse/kernel/trace_signal.h"

#include <algorithm>
#include <charconv>
#include <system_error>

#include "base/text.h"

namespace ftdiag::parse {

namespace {

constexpr std::string_view kEventMarker = ": signal_generate: ";
// The tracer prints this for a pid whose comm is not in saved_cmdlines.
constexpr std::string_view kUnknownComm = "<...>";

using ascii::is_digit;
using ftdiag::text::trim;

template <class Number>
std::optional<Number> to_number(std::string_view text) {
  Number value{};
  const char* end = text.data() + text.size();
  auto [stop, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc{} || stop != end) return std::nullopt;
  return value;
}

// Seconds as the tracer prints them: "5678.123456", or whole counts for the
// counter-like clocks (x86-tsc, counter). No sign, exponent, inf or nan.
std::optional<double> to_timestamp(std::string_view text) {
  const bool plain = std::all_of(text.begin(), text.end(), [](char c) { return is_digit(c) || c == '.'; });
  return plain ? to_number<double>(text) : std::nullopt;
}

// Removes and returns the last blank-separated token of `text`.
std::string_view take_last_token(std::string_view& text) {
  text = trim(text);
  const auto space = text.find_last_of(" \t");
  const std::string_view token = space == std::string_view::npos ? text : text.substr(space + 1);
  text = space == std::string_view::npos ? std::string_view{} : text.substr(0, space);
  return token;
}

// The latency flags ("d..1." since 6.x, "d..1" before, "dNh2."): irq state,
// need-resched, hard/soft irq, preempt depth, migrate-disable depth. Never a
// dash, bracket or parenthesis, so never the "comm-pid" or cpu column.
bool is_flags_column(std::string_view token) {
  if (token.size() != 4 && token.size() != 5) return false;
  return std::all_of(token.begin(), token.end(), [](char c) {
    return c == '.' || is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  });
}

// "[001]" at the end of `header`, taken off.
std::optional<int> take_cpu_column(std::string_view& header) {
  header = trim(header);
  if (header.empty() || header.back() != ']') return std::nullopt;
  const auto open = header.rfind('[');
  if (open == std::string_view::npos) return std::nullopt;
  auto cpu = to_number<int>(header.substr(open + 1, header.size() - open - 2));
  if (cpu) header = header.substr(0, open);
  return cpu;
}

// "(   1741)" or "(-------)" (record-tgid) at the end of `header`, taken off.
void drop_tgid_column(std::string_view& header) {
  header = trim(header);
  if (header.empty() || header.back() != ')') return;
  const auto open = header.rfind('(');
  if (open == std::string_view::npos) return;
  const std::string_view inside = trim(header.substr(open + 1, header.size() - open - 2));
  const bool unknown = !inside.empty() && inside.find_first_not_of('-') == std::string_view::npos;
  if (unknown || to_number<int>(inside)) header = header.substr(0, open);
}

// The context columns before ": signal_generate: ", read from the right.
bool parse_context(std::string_view header, SignalGenerated& record) {
  auto timestamp = to_timestamp(take_last_token(header));
  if (!timestamp) return false;
  record.timestamp = *timestamp;
  std::string_view rest = header;
  if (is_flags_column(take_last_token(rest))) header = rest;
  record.cpu = take_cpu_column(header);
  drop_tgid_column(header);
  header = trim(header);
  const auto dash = header.rfind('-');
  if (dash == std::string_view::npos) return false;
  auto pid = to_number<int>(header.substr(dash + 1));
  if (!pid) return false;
  record.sender_pid = *pid;
  const std::string_view comm = header.substr(0, dash);
  record.sender_comm = comm == kUnknownComm ? std::string{} : std::string(comm);
  return true;
}

// Takes "<key><number>" off the front of `text`, up to the next space.
std::optional<int> take_leading_field(std::string_view& text, std::string_view key) {
  if (text.substr(0, key.size()) != key) return std::nullopt;
  text.remove_prefix(key.size());
  const auto space = text.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto value = to_number<int>(text.substr(0, space));
  text.remove_prefix(space + 1);
  return value;
}

// Takes "<key><number>" off the end of `text`, the key's last occurrence.
std::optional<int> take_trailing_field(std::string_view& text, std::string_view key) {
  const auto at = text.rfind(key);
  if (at == std::string_view::npos) return std::nullopt;
  auto value = to_number<int>(text.substr(at + key.size()));
  text = text.substr(0, at);
  return value;
}

// "sig=9 errno=0 code=0 comm=sleep pid=4242 grp=1 res=0": the fixed fields
// from the left, then pid, grp and res from the right, so that whatever
// lies between "comm=" and the last " pid=" is the comm, spaces and all.
bool parse_fields(std::string_view body, SignalGenerated& record) {
  auto result = take_trailing_field(body, " res=");
  auto group = take_trailing_field(body, " grp=");
  auto target_pid = take_trailing_field(body, " pid=");
  auto signal = take_leading_field(body, "sig=");
  auto error = take_leading_field(body, "errno=");
  auto code = take_leading_field(body, "code=");
  if (!result || !group || !target_pid || !signal || !error || !code) return false;
  if (body.substr(0, 5) != "comm=") return false;
  record.target_comm = std::string(body.substr(5));
  record.target_pid = *target_pid;
  record.group = *group != 0;
  record.result = *result;
  record.signal = *signal;
  record.error = *error;
  record.code = *code;
  return true;
}

}  // namespace

std::optional<SignalGenerated> parse_signal_generate(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.remove_suffix(1);
  const auto marker = line.find(kEventMarker);
  if (marker == std::string_view::npos) return std::nullopt;
  SignalGenerated record;
  if (!parse_context(line.substr(0, marker), record)) return std::nullopt;
  if (!parse_fields(line.substr(marker + kEventMarker.size()), record)) return std::nullopt;
  return record;
}

std::optional<std::uint64_t> parse_lost_events(std::string_view line) {
  line = trim(line);
  constexpr std::string_view kPrefix = "CPU:", kMiddle = " [LOST ", kSuffix = " EVENTS]";
  if (line.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  const auto middle = line.find(kMiddle);
  if (middle == std::string_view::npos || !to_number<int>(line.substr(kPrefix.size(), middle - kPrefix.size())))
    return std::nullopt;
  const std::string_view tail = line.substr(middle + kMiddle.size());
  if (tail.size() <= kSuffix.size() || tail.substr(tail.size() - kSuffix.size()) != kSuffix) return std::nullopt;
  return to_number<std::uint64_t>(tail.substr(0, tail.size() - kSuffix.size()));
}

std::optional<std::string> find_saved_comm(std::string_view saved_cmdlines, int pid) {
  while (!saved_cmdlines.empty()) {
    const auto end = saved_cmdlines.find('\n');
    const std::string_view line = saved_cmdlines.substr(0, end);
    saved_cmdlines = end == std::string_view::npos ? std::string_view{} : saved_cmdlines.substr(end + 1);
    const auto space = line.find(' ');
    if (space == std::string_view::npos || to_number<int>(line.substr(0, space)) != pid) continue;
    const std::string_view comm = line.substr(space + 1);
    if (comm.empty() || comm == kUnknownComm) return std::nullopt;
    return std::string(comm);
  }
  return std::nullopt;
}

std::string_view signal_result_name(int result) {
  switch (result) {
    case 0: return "delivered";
    case 1: return "ignored";
    case 2: return "already-pending";
    case 3: return "overflow";
    case 4: return "lost-info";
    default: return "unknown";
  }
}

}  // namespace ftdiag::parse
