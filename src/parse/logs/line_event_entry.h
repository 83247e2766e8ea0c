// The compiled form of one rules/log-events.json entry, shared by the loader
// (line_event_table.cpp) and the matcher (line_events.cpp). Not a public
// header: users see LineEventTable only.
#pragma once

#include <cstddef>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <re2/re2.h>

#include "parse/logs/line_events.h"

namespace ftdiag::parse {

// Where a named group's text goes.
enum class LineEventField { pid, signal, exit_code, rank, detail };

struct LineEventGroup {
  int index = 0;  // RE2 capturing group number (1-based)
  LineEventField field = LineEventField::detail;
  std::string name;
};

struct LineEventTable::Entry {
  std::string kind;
  std::string source;
  std::string means;  // the kind's, from its declaration
  std::unique_ptr<re2::RE2> regex;
  std::size_t literal = 0;                      // index into the prefilter's literals
  std::optional<int> signal;                    // fixed by the entry
  std::map<std::string, std::string> details;   // fixed by the entry
  std::vector<LineEventGroup> groups;
  int submatches = 1;                           // 1 + the highest group number used
};

// More capturing groups than any entry needs; match() keeps them on the stack.
inline constexpr int kMaxLineEventGroups = 20;

}  // namespace ftdiag::parse
