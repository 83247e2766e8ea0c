#include "parse/logs/line_events.h"

#include <algorithm>
#include <array>
#include <charconv>

#include "base/text.h"
#include "parse/logs/line_event_entry.h"
#include "parse/logs/line_event_prefilter.h"
#include "parse/logs/signal_text.h"

namespace ftdiag::parse {

namespace {

// Trailing blanks, CR and NUL (a C++ handler's write() of a whole buffer,
// a CRLF log) and leading NULs are not part of what a line says.
std::string_view trim_line(std::string_view line) {
  while (!line.empty() && line.front() == '\0') line.remove_prefix(1);
  while (!line.empty()) {
    const char c = line.back();
    if (c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '\0') break;
    line.remove_suffix(1);
  }
  return line;
}

using ftdiag::text::to_int;

std::optional<int> to_count(std::string_view text) {
  auto value = to_int(text);
  return value && *value >= 0 ? value : std::nullopt;
}

// "-9", "137", and "-SIGKILL" (multiprocessing's repr: exitcode=-SIGKILL):
// the exit code as Python reports it, and the signal a negative one means.
struct ExitCode {
  int code = 0;
  std::optional<int> signal;
};

std::optional<ExitCode> to_exit_code(std::string_view text) {
  if (auto code = to_int(text)) {
    ExitCode out{*code, std::nullopt};
    if (*code < 0 && *code >= -64) out.signal = -*code;
    return out;
  }
  if (text.size() > 1 && text.front() == '-') {
    if (auto signal = signal_number_from_text(text.substr(1))) return ExitCode{-*signal, signal};
  }
  return std::nullopt;
}

// Puts one group's text where its name says; text that does not convert
// stays visible in details under the group's name.
void assign(LineEvent& event, const LineEventGroup& group, std::string_view text) {
  auto keep_text = [&] { event.details[group.name] = std::string(text); };
  switch (group.field) {
    case LineEventField::pid:
      if (auto pid = to_count(text)) event.pid = pid;
      else keep_text();
      return;
    case LineEventField::rank:
      if (auto rank = to_count(text)) event.rank = rank;
      else keep_text();
      return;
    case LineEventField::signal:
      if (auto signal = signal_number_from_text(text)) event.signal = signal;
      else keep_text();
      return;
    case LineEventField::exit_code:
      if (auto exit = to_exit_code(text)) {
        event.exit_code = exit->code;
        if (exit->signal && !event.signal) event.signal = exit->signal;
      } else {
        keep_text();
      }
      return;
    case LineEventField::detail:
      keep_text();
      return;
  }
}

// Two passes: RE2 finds whether and where the pattern matches with its DFAs
// alone (fast); only then are the groups extracted, from the match's own span
// anchored at both ends, where RE2 can use its cheaper submatch engines
// (one-pass, bit-state) instead of an NFA over the whole line.
std::optional<LineEvent> match_entry(const LineEventTable::Entry& entry, std::string_view line) {
  const re2::StringPiece text(line.data(), line.size());
  re2::StringPiece span;
  if (!entry.regex->Match(text, 0, text.size(), re2::RE2::UNANCHORED, &span, 1)) return std::nullopt;
  std::array<re2::StringPiece, kMaxLineEventGroups + 1> submatch;
  const auto start = static_cast<std::size_t>(span.data() - text.data());
  if (!entry.regex->Match(text, start, start + span.size(), re2::RE2::ANCHOR_BOTH, submatch.data(), entry.submatches)) {
    return std::nullopt;
  }
  LineEvent event{entry.kind, entry.source, std::nullopt, entry.signal, std::nullopt, std::nullopt, entry.details, entry.means};
  for (const auto& group : entry.groups) {
    const auto& text = submatch[static_cast<std::size_t>(group.index)];
    if (text.data() == nullptr) continue;  // an optional group that took no part
    assign(event, group, std::string_view(text.data(), text.size()));
  }
  return event;
}

}  // namespace

LineEventTable::LineEventTable() = default;
LineEventTable::LineEventTable(LineEventTable&&) noexcept = default;
LineEventTable& LineEventTable::operator=(LineEventTable&&) noexcept = default;
LineEventTable::~LineEventTable() = default;

std::optional<LineEvent> LineEventTable::match(std::string_view line) const {
  if (!prefilter_) return std::nullopt;
  line = trim_line(line);
  const auto found = prefilter_->find(line);
  if (found.none()) return std::nullopt;
  for (const auto& entry : entries_) {
    if (!found[entry.literal]) continue;
    if (auto event = match_entry(entry, line)) return event;
  }
  return std::nullopt;
}

const std::vector<LineEventPattern>& LineEventTable::patterns() const { return patterns_; }

std::vector<std::string> LineEventTable::kinds() const {
  std::vector<std::string> kinds;
  for (const auto& [kind, means] : kind_means_) kinds.push_back(kind);
  return kinds;
}

std::string LineEventTable::means_of(std::string_view kind) const {
  for (const auto& [declared, means] : kind_means_) {
    if (declared == kind) return means;
  }
  return {};
}

}  // namespace ftdiag::parse
