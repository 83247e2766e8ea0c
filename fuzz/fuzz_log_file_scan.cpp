// `ftdiag analyze` reads any file under a folder as a log: neither bytes nor
// line ends may crash the scanner, and what it finds must be what the exact
// readers find line by line. Each input is scanned with the project's
// rules/log-events.json and rules/phases.json; its events must be those
// LineEventTable::match gives each line and "\r" redraw, at the same line
// numbers, and the counts must add up.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "collectors/log_file_scan.h"
#include "evidence/failure_words.h"
#include "evidence/phase_table.h"
#include "parse/logs/line_events.h"

namespace {

using namespace ftdiag;

const parse::LineEventTable& event_table() {
  static const auto loaded = parse::LineEventTable::load(FTDIAG_SOURCE_DIR "/rules/log-events.json");
  if (!std::holds_alternative<parse::LineEventTable>(loaded)) __builtin_trap();  // the shipped table must load
  return std::get<parse::LineEventTable>(loaded);
}

const evidence::PhaseTable& phase_table() {
  static const auto loaded = evidence::PhaseTable::load(FTDIAG_SOURCE_DIR "/rules/phases.json");
  if (!loaded) __builtin_trap();
  return loaded.value();
}

const evidence::FailureWords& failure_words() {
  static const auto loaded = evidence::FailureWords::load(FTDIAG_SOURCE_DIR "/rules/failure-words.json");
  if (!loaded) __builtin_trap();
  return loaded.value();
}

const collectors::LogScanner& scanner() {
  static const collectors::LogScanner scanner(&phase_table(), &event_table(), &failure_words());
  if (!scanner.fallback_reason().empty()) __builtin_trap();  // the shipped tables are searched at once
  return scanner;
}

// (line, kind) of every event the table's reader finds: lines end at "\n"
// (a "\r" before it is part of the end), a lone "\r" starts a redraw.
std::vector<std::pair<std::uint64_t, std::string>> reference_events(std::string_view text) {
  std::vector<std::pair<std::uint64_t, std::string>> out;
  std::uint64_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, nl - start);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    for (std::size_t from = 0;;) {
      const std::size_t cr = std::min(line.find('\r', from), line.size());
      if (auto event = event_table().match(line.substr(from, cr - from))) out.emplace_back(number, event->kind);
      if (cr == line.size()) break;
      from = cr + 1;
    }
    start = nl + 1;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto scanned = scanner().scan_text(input, evidence::Provenance{.collector = "fuzz", .file = "fuzz.log"}, 2024);
  const auto& log = scanned.log;

  const auto newlines = static_cast<std::uint64_t>(std::count(input.begin(), input.end(), '\n'));
  if (log.bytes != size) __builtin_trap();
  if (log.ends_mid_line != (size > 0 && input.back() != '\n')) __builtin_trap();
  if (log.line_count != newlines + (log.ends_mid_line ? 1 : 0)) __builtin_trap();
  if (log.nul_bytes != static_cast<std::uint64_t>(std::count(input.begin(), input.end(), '\0'))) __builtin_trap();

  std::vector<std::pair<std::uint64_t, std::string>> found;
  for (const auto& event : log.events) found.emplace_back(event.from.line.value_or(0), event.kind);
  if (log.events_dropped == 0 && found != reference_events(input)) __builtin_trap();

  std::uint64_t previous = 0;
  for (const auto& phase : log.phases) {
    if (phase.first_line_number < previous || phase.last_line_number < phase.first_line_number) __builtin_trap();
    if (phase.last_line_number > log.line_count || phase.lines == 0) __builtin_trap();
    previous = phase.last_line_number;
  }
  previous = 0;
  for (const auto& line : log.tail) {
    if (line.line_number <= previous || line.line_number > log.line_count) __builtin_trap();
    if (line.text.find_first_of("\r\n") != std::string::npos) __builtin_trap();
    // The word a tail line carries is the one the table gives its text.
    const auto word = failure_words().classify(line.text);
    if (line.word.has_value() != word.has_value() || (word && *line.word != *word)) __builtin_trap();
    previous = line.line_number;
  }
  if (log.tail.size() > collectors::LogScanner::kTailLines) __builtin_trap();
  for (const auto& event : scanned.kernel_events) {
    if (!event.from.line || *event.from.line < 1 || *event.from.line > log.line_count) __builtin_trap();
  }
  return 0;
}
