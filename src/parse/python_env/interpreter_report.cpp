#include "parse/python_env/interpreter_report.h"

#include <nlohmann/json.hpp>

#include "base/text.h"

namespace ftdiag::parse {
namespace {

std::string string_or_empty(const nlohmann::json& object, const char* key) {
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string();
}

}  // namespace

Fact<InterpreterReport> parse_interpreter_report(std::string_view output) {
  std::string_view line;
  for (std::string_view candidate : text::lines(output)) {
    if (candidate.starts_with(kInterpreterReportMarker)) line = candidate.substr(kInterpreterReportMarker.size());
  }
  if (line.empty()) return Missing{MissingReason::unparseable, "no report line in the interpreter's output"};
  // No exceptions: a parse error is a discarded value, and every access below checks the type first.
  const auto json = nlohmann::json::parse(line, nullptr, false);
  if (!json.is_object()) return Missing{MissingReason::unparseable, "the interpreter's report is not a JSON object"};
  auto path = json.find("path");
  InterpreterReport report{string_or_empty(json, "version"), string_or_empty(json, "executable"),
                           string_or_empty(json, "prefix"), {}};
  if (report.version.empty() || path == json.end() || !path->is_array()) {
    return Missing{MissingReason::unparseable, "the interpreter's report has no version or no path list"};
  }
  for (const auto& entry : *path) {
    if (entry.is_string() && !entry.get_ref<const std::string&>().empty()) report.sys_path.push_back(entry.get<std::string>());
  }
  return report;
}

}  // namespace ftdiag::parse
