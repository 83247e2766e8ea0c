// What an interpreter printed when asked about itself (its version and
// sys.path) by the script collect/python_env/python_sys_path.h runs.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// The script prints one line, "ftdiag-python-report {json}", after whatever
// site hooks printed before it.
inline constexpr std::string_view kInterpreterReportMarker = "ftdiag-python-report ";

// The interpreter's answer.
struct InterpreterReport {
  std::string version;     // "3.11.2": sys.version_info's first three
  std::string executable;  // sys.executable
  std::string prefix;      // sys.prefix
  // sys.path without the entry for the current directory that `-c` puts
  // first: the job's first entry is its script's folder instead.
  std::vector<std::string> sys_path;
};

// Pure and total: the last report line of the output. Missing (unparseable)
// when there is none, or its JSON lacks a string version or a list path.
Fact<InterpreterReport> parse_interpreter_report(std::string_view output);

}  // namespace ftdiag::parse
