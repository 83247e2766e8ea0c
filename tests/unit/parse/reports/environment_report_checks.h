// Looking values up in what parse_environment_report returned.
#pragma once

#include <string>
#include <vector>

#include "parse/reports/environment_report.h"

namespace ftdiag::testing {

// The first value of `key`, or "(none)".
inline std::string stated(const std::vector<parse::ReportedSetting>& values, const std::string& key) {
  for (const auto& v : values) {
    if (v.key == key) return v.value;
  }
  return "(none)";
}

// The line of the first value of `key`, 0 when none.
inline std::uint64_t stated_line(const std::vector<parse::ReportedSetting>& values, const std::string& key) {
  for (const auto& v : values) {
    if (v.key == key) return v.line;
  }
  return 0;
}

inline std::size_t count_of(const std::vector<parse::ReportedSetting>& values, const std::string& key) {
  std::size_t n = 0;
  for (const auto& v : values) n += v.key == key;
  return n;
}

}  // namespace ftdiag::testing
