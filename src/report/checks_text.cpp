#include "report/checks_text.h"

#include <fmt/format.h>

namespace ftdiag::report {

namespace {

std::string label(rules::Severity severity) {
  switch (severity) {
    case rules::Severity::error: return "ERROR  ";
    case rules::Severity::warning: return "WARNING";
    case rules::Severity::info: return "note   ";
  }
  return "?";
}

std::string plural(std::size_t n, const char* one, const char* many) { return fmt::format("{} {}", n, n == 1 ? one : many); }

}  // namespace

std::string render_checks(const std::vector<rules::Finding>& checks, bool details) {
  std::size_t errors = 0, warnings = 0, notes = 0;
  for (const auto& c : checks) {
    const auto severity = c.severity.value_or(rules::Severity::warning);
    (severity == rules::Severity::error ? errors : severity == rules::Severity::warning ? warnings : notes) += 1;
  }
  std::string out;
  if (checks.empty()) return "ftdiag preflight: nothing found\n";
  out += fmt::format("ftdiag preflight: {}, {}, {}\n", plural(errors, "error", "errors"), plural(warnings, "warning", "warnings"),
                     plural(notes, "note", "notes"));
  for (const auto& c : checks) {
    const auto severity = c.severity.value_or(rules::Severity::warning);
    out += fmt::format("\n{} {}{}\n", label(severity), c.title, c.cause.empty() ? "" : fmt::format(" [{}]", c.cause));
    out += fmt::format("        {}\n", c.summary);
    if (!c.remediation.empty()) out += fmt::format("  fix:  {}\n", c.remediation.front());
    if (!details) continue;
    for (std::size_t i = 1; i < c.remediation.size(); ++i) out += fmt::format("  or:   {}\n", c.remediation[i]);
    for (const auto& s : c.supporting) out += fmt::format("        ({})\n", s.says);
  }
  return out;
}

std::string render_environment_risks(const std::vector<rules::Finding>& checks, const TextStyle& style) {
  std::string out;
  std::size_t hidden = 0;
  for (const auto& c : checks) {
    if (c.severity == rules::Severity::info) continue;
    const bool error = c.severity == rules::Severity::error;
    if (!error && !style.verbose) {
      ++hidden;
      continue;
    }
    if (out.empty()) out += toned(style, Tone::strong, "  risks in the job's environment (ftdiag preflight checks):") + "\n";
    out += wrap(fmt::format("{} {}: {}", error ? toned(style, Tone::bad, "error:") : toned(style, Tone::warn, "warning:"), c.title, c.summary),
                style.width, "    ", "      ");
    if (!c.remediation.empty()) out += wrap("fix: " + c.remediation.front(), style.width, "      ", "        ");
  }
  if (hidden) {
    out += toned(style, Tone::quiet, fmt::format("  {} warning{} about the job's environment: --verbose, or ftdiag preflight", hidden,
                                                 hidden == 1 ? "" : "s")) +
           "\n";
  }
  return out;
}

}  // namespace ftdiag::report
