// Helpers for the plain-log scanner's tests: the project's tables, a scanner
// over them, evidence written as lines of text ("12: rank-failed"), and a
// reference reading of a text that runs the exact readers on every line —
// what the scanner must find, however it finds it.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/log_file_scan.h"
#include "evidence/phase_table.h"
#include "unit/parse/logs/line_event_testing.h"

namespace ftdiag::collectors::testing {

// rules/phases.json, loaded once; a load error fails the calling test.
inline const evidence::PhaseTable& project_phases() {
  static const auto loaded = evidence::PhaseTable::load(parse::testing::project_file("rules/phases.json"));
  if (!loaded) FAIL("rules/phases.json: " << loaded.missing().detail);
  return loaded.value();
}

// The scanner `ftdiag analyze` uses: both tables, searched all at once.
inline const LogScanner& project_scanner() {
  static const LogScanner scanner(&project_phases(), &parse::testing::project_table());
  return scanner;
}

inline const evidence::Provenance kTestLog{.collector = "log-files", .file = "console.log"};

inline ScannedLog scan(std::string_view text, std::optional<int> year = std::nullopt) {
  return project_scanner().scan_text(text, kTestLog, year);
}

inline std::vector<std::string> event_lines(const evidence::LogFileEvidence& log) {
  std::vector<std::string> out;
  for (const auto& event : log.events) out.push_back(std::to_string(event.from.line.value_or(0)) + ": " + event.kind);
  return out;
}

inline std::vector<std::string> phase_lines(const evidence::LogFileEvidence& log) {
  std::vector<std::string> out;
  for (const auto& p : log.phases) {
    out.push_back(std::to_string(p.first_line_number) + "-" + std::to_string(p.last_line_number) + " " + p.phase + " x" +
                  std::to_string(p.lines));
  }
  return out;
}

// The pieces of a text the scanner reads one by one, with their line
// numbers: lines end at "\n" (the "\r"s just before it are part of the
// end); a lone "\r" redraws the same line, and only its last drawing (what
// a terminal shows) is read.
struct Segment {
  std::uint64_t line;
  std::string_view text;
};

inline std::vector<Segment> segments_of(std::string_view text) {
  std::vector<Segment> out;
  std::uint64_t number = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t nl = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, nl - start);
    ++number;
    while (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const std::size_t cr = line.rfind('\r');
    out.push_back({number, cr == std::string_view::npos ? line : line.substr(cr + 1)});
    start = nl + 1;
  }
  return out;
}

// What the exact readers find in every segment: "N: kind".
inline std::vector<std::string> reference_events(std::string_view text) {
  std::vector<std::string> out;
  for (const auto& segment : segments_of(text)) {
    if (auto event = parse::testing::project_table().match(segment.text)) {
      out.push_back(std::to_string(segment.line) + ": " + event->kind);
    }
  }
  return out;
}

// The phases every segment marks, folded into stretches as phase_lines() writes them.
inline std::vector<std::string> reference_phases(std::string_view text) {
  struct Stretch {
    std::string phase;
    std::uint64_t first, last, lines;
  };
  std::vector<Stretch> stretches;
  for (const auto& segment : segments_of(text)) {
    const auto phase = project_phases().classify(segment.text);
    if (!phase) continue;
    if (!stretches.empty() && stretches.back().phase == *phase) {
      stretches.back().last = segment.line;
      ++stretches.back().lines;
    } else {
      stretches.push_back({std::string(*phase), segment.line, segment.line, 1});
    }
  }
  std::vector<std::string> out;
  for (const auto& s : stretches) {
    out.push_back(std::to_string(s.first) + "-" + std::to_string(s.last) + " " + s.phase + " x" + std::to_string(s.lines));
  }
  return out;
}

// "\n" -> "\r\n": the same log as a pty or Windows wrote it.
inline std::string with_crlf(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 32);
  for (char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

}  // namespace ftdiag::collectors::testing
