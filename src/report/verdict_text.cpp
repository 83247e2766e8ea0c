#include "report/verdict_text.h"

#include <fmt/format.h>

#include "report/checks_text.h"

namespace ftdiag::report {

namespace {

std::string confidence_text(double c) { return fmt::format("{:.0f}%", c * 100); }

void append_finding_details(std::string& out, const rules::Finding& f) {
  if (!f.evidence.empty()) {
    out += "  evidence:\n";
    for (const auto& c : f.evidence) out += fmt::format("    {} = {}{}\n", c.fact, c.display, c.pointer.empty() ? "" : "   [" + c.pointer + "]");
  }
  for (const auto& s : f.supporting) out += fmt::format("  + {}\n", s.says);
  for (const auto& s : f.contradicting) out += fmt::format("  - against: {}\n", s.says);
  if (!f.remediation.empty()) {
    out += "  what to do:\n";
    for (std::size_t i = 0; i < f.remediation.size(); ++i) out += fmt::format("    {}. {}\n", i + 1, f.remediation[i]);
  }
}

// The causes an entry of evidence would decide, named up to a few.
std::string causes_text(const std::vector<std::string>& causes) {
  constexpr std::size_t kNamed = 5;
  std::string text;
  for (std::size_t i = 0; i < causes.size() && i < kNamed; ++i) text += (i ? ", " : "") + causes[i];
  if (causes.size() > kNamed) text += fmt::format(" and {} more", causes.size() - kNamed);
  return text;
}

// What would decide an unknown verdict (or make a likely one sure), in words,
// with how to get it.
void append_needed_evidence(std::string& out, const rules::Verdict& v) {
  if (v.needed.empty()) return;
  out += v.cause == "unknown" ? "  what would decide it:\n" : "  what would make it sure:\n";
  for (std::size_t i = 0; i < v.needed.size(); ++i) {
    const auto& need = v.needed[i];
    out += fmt::format("    {}. {}\n", i + 1, need.what);
    out += fmt::format("       it would decide between: {}\n", causes_text(need.causes));
    for (const auto& step : need.how) out += fmt::format("       - {}\n", step);
  }
  out += "  (the facts the rules missed: ftdiag analyze --facts, or verdict.missing_facts in --format json)\n";
}

}  // namespace

std::string render_verdict(const rules::Judgement& judgement) {
  const auto& v = judgement.verdict;
  std::string out;
  if (v.ended_normally) {
    // Nothing failed: no cause to name, and nothing to ask for.
    out += fmt::format("ftdiag verdict: the job ended normally\n  {}\n", v.summary);
    for (const auto& note : v.notes) out += fmt::format("  note: {}\n", note);
  } else if (v.cause == "unknown") {
    out += fmt::format("ftdiag verdict: unknown\n  {}\n", v.summary);
    for (const auto& note : v.notes) out += fmt::format("  note: {}\n", note);
    append_needed_evidence(out, v);
  } else {
    out += fmt::format("ftdiag verdict: {}{} (confidence {})\n  {}\n", v.cause,
                       v.scope ? fmt::format(", scope {}", *v.scope) : "", confidence_text(v.confidence), v.summary);
    if (!judgement.findings.empty() && judgement.findings.front().rule == v.rule) {
      append_finding_details(out, judgement.findings.front());
    }
    append_needed_evidence(out, v);
  }
  for (const auto& f : judgement.findings) {
    if (f.rule == v.rule) continue;
    if (f.consequence_of) {
      out += fmt::format("  then: {} — a consequence ({})\n", f.summary, f.rule);
    } else {
      out += fmt::format("  also considered: {} ({}, confidence {}{}): {}\n", f.cause, f.rule, confidence_text(f.confidence),
                         f.refined_by ? fmt::format(", refined by {}", *f.refined_by) : "", f.summary);
    }
  }
  out += render_environment_risks(judgement.checks);
  return out;
}

}  // namespace ftdiag::report
