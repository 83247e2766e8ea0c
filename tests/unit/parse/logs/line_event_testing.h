// Helpers for the line-event tests: the project's table, fixture logs, and
// events written as one line of text so an expectation reads like the log it
// checks ("8: rank-failed torchrun pid=21120 signal=9 exit_code=-9 rank=1").
#pragma once

#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include "parse/logs/line_events.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

namespace ftdiag::parse::testing {

inline std::filesystem::path project_file(const std::string& relative) {
  return (std::filesystem::path(FTDIAG_FIXTURES_DIR) / ".." / ".." / relative).lexically_normal();
}

// rules/log-events.json, loaded once; a load error fails the calling test.
inline const LineEventTable& project_table() {
  static const auto loaded = LineEventTable::load(project_file("rules/log-events.json"));
  if (const auto* error = std::get_if<std::string>(&loaded)) FAIL("rules/log-events.json: " << *error);
  return std::get<LineEventTable>(loaded);
}

inline std::string read_whole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE_MESSAGE(in.good(), "cannot open " << path.string());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline std::string describe(const LineEvent& event) {
  std::string out = event.kind + " " + event.source;
  if (event.pid) out += " pid=" + std::to_string(*event.pid);
  if (event.signal) out += " signal=" + std::to_string(*event.signal);
  if (event.exit_code) out += " exit_code=" + std::to_string(*event.exit_code);
  if (event.rank) out += " rank=" + std::to_string(*event.rank);
  for (const auto& [name, value] : event.details) out += " " + name + "=" + value;
  return out;
}

// "N: <event>" for every line of a fixture log (tests/fixtures/logs/) that
// gives an event; lines are split at '\n' only, as a console log stores them.
inline std::vector<std::string> events_of_log(const std::string& name) {
  const auto text = read_whole(std::filesystem::path(FTDIAG_FIXTURES_DIR) / "logs" / name);
  std::vector<std::string> out;
  std::size_t number = 0, start = 0;
  while (start < text.size()) {
    const auto end = std::min(text.find('\n', start), text.size());
    ++number;
    if (auto event = project_table().match(std::string_view(text).substr(start, end - start))) {
      out.push_back(std::to_string(number) + ": " + describe(*event));
    }
    start = end + 1;
  }
  return out;
}

}  // namespace ftdiag::parse::testing
