#include "report/report_markdown.h"
#include "report/ranks_table.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "facts/incident.h"
#include "report/memory_timeline_text.h"
#include "report/report_tables.h"
#include "report/verdict_text.h"
#include "rules/causes.h"

namespace ftdiag::report {

namespace {

constexpr std::size_t kMarkdownConsoleLines = 30;
constexpr std::size_t kProcessesShown = 40;

// Text in a fenced block cannot end it: a run of backticks gets a longer fence.
std::string fenced(const std::string& body, std::string_view info = {}) {
  std::size_t longest = 0, run = 0;
  for (const char c : body) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + std::string(info) + "\n" + body;
  if (!body.empty() && body.back() != '\n') out += '\n';
  return out + fence + "\n";
}

void append_verdict(std::string& out, const ReportInput& in) {
  const auto& v = in.judgement.verdict;
  out += fmt::format("### ftdiag: {}\n\n", markdown_text(verdict_headline(v)));
  if (v.ended_normally) {
    out += markdown_text(v.summary) + "\n\n";
    return;
  }
  if (v.cause != rules::kUnknownCause) {
    out += fmt::format("**Cause:** `{}`{} · confidence **{}**{}\n\n", v.cause, v.scope ? fmt::format(" · scope `{}`", *v.scope) : "",
                       confidence_percent(v.confidence), v.rule.empty() ? "" : fmt::format(" · rule `{}`", v.rule));
  }
  out += markdown_text(v.summary) + "\n\n";
  for (const auto& note : v.notes) out += "> " + markdown_text(note) + "\n\n";
}

void append_evidence(std::string& out, const rules::Finding& f) {
  if (!f.evidence.empty()) {
    out += "| evidence | value | from |\n| --- | --- | --- |\n";
    for (const auto& c : f.evidence) {
      out += fmt::format("| `{}` | {} | {} |\n", c.fact, markdown_cell(c.display), c.pointer.empty() ? "derived" : markdown_code(c.pointer));
    }
    out += '\n';
  }
  for (const auto& s : f.supporting) out += "- " + markdown_text(s.says) + "\n";
  for (const auto& s : f.contradicting) out += "- against: " + markdown_text(s.says) + "\n";
  if (!f.supporting.empty() || !f.contradicting.empty()) out += '\n';
  if (!f.remediation.empty()) {
    out += "**What to do**\n\n";
    for (std::size_t i = 0; i < f.remediation.size(); ++i) out += fmt::format("{}. {}\n", i + 1, markdown_text(f.remediation[i]));
    out += '\n';
  }
}

void append_needed(std::string& out, const rules::Verdict& v) {
  if (v.needed.empty()) return;
  out += v.cause == rules::kUnknownCause ? "**What would decide it**\n\n" : "**What would make it sure**\n\n";
  for (std::size_t i = 0; i < v.needed.size(); ++i) {
    out += fmt::format("{}. {}\n", i + 1, markdown_text(v.needed[i].what));
    for (const auto& step : v.needed[i].how) out += "   - " + markdown_text(step) + "\n";
  }
  out += '\n';
}

// The incident's run, else the first.
const RunPlace* main_run(const ReportInput& in, const std::optional<facts::Incident>& incident) {
  if (in.runs.empty()) return nullptr;
  if (incident && incident->run) {
    for (const auto& place : in.runs) {
      if (place.ref.host == incident->run->host && place.ref.run == incident->run->run) return &place;
    }
  }
  return &in.runs.front();
}

void append_timeline(std::string& out, const evidence::RunEvidence& run, std::optional<std::size_t> incident) {
  TextStyle style;
  style.width = 100;
  const auto timeline = render_memory_timeline(run, style, "", incident);
  if (timeline.empty()) return;
  out += "**Memory timeline**\n\n" + fenced(timeline) + "\n";
}

void append_environment(std::string& out, const facts::FactSet& facts) {
  const auto rows = environment_rows(facts);
  if (rows.empty()) return;
  out += "**Environment**\n\n| | |\n| --- | --- |\n";
  for (const auto& [label, value] : rows) out += fmt::format("| {} | {} |\n", label, markdown_cell(value));
  out += '\n';
}

void append_processes(std::string& out, const evidence::RunEvidence& run) {
  const auto deaths = abnormal_deaths(run);
  if (deaths.empty()) return;
  out += fmt::format("<details><summary>Processes that died abnormally ({})</summary>\n\n", deaths.size());
  out += "| pid | role | how | at | command |\n| --- | --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < deaths.size() && i < kProcessesShown; ++i) {
    const auto& d = deaths[i];
    out += fmt::format("| {} | {} | {} | {} | {} |\n", d.pid, d.role, d.how, d.at, markdown_code(d.command));
  }
  if (deaths.size() > kProcessesShown) out += fmt::format("\n… and {} more\n", deaths.size() - kProcessesShown);
  out += "\n</details>\n\n";
}

void append_other_causes(std::string& out, const rules::Judgement& judgement) {
  std::string items;
  for (const auto& f : judgement.findings) {
    if (f.rule == judgement.verdict.rule || f.cause == judgement.verdict.cause) continue;
    items += fmt::format("- {}`{}` ({}, {}): {}\n", f.consequence_of ? "then: " : "", f.cause, f.rule, confidence_percent(f.confidence),
                         markdown_text(f.summary));
  }
  for (const auto& c : judgement.checks) {
    if (c.severity == rules::Severity::info) continue;
    items += fmt::format("- risk of the environment: {}: {}\n", markdown_text(c.title), markdown_text(c.summary));
  }
  if (items.empty()) return;
  out += "<details><summary>Other causes considered, consequences and risks</summary>\n\n" + items + "\n</details>\n\n";
}

void append_console(std::string& out, const evidence::RunEvidence& run) {
  const auto& tail = run.console.tail;
  if (tail.empty()) return;
  std::string body;
  for (std::size_t i = tail.size() > kMarkdownConsoleLines ? tail.size() - kMarkdownConsoleLines : 0; i < tail.size(); ++i) body += tail[i].text + "\n";
  out += fmt::format("<details><summary>The console's last {} lines</summary>\n\n", std::min(tail.size(), kMarkdownConsoleLines));
  out += fenced(body) + "\n</details>\n\n";
}

}  // namespace

std::string markdown_text(std::string_view text) {
  // One line: a line break would end a list item or a table row.
  std::string line(text);
  std::replace_if(line.begin(), line.end(), [](char c) { return c == '\n' || c == '\r'; }, ' ');
  return html_escape(line);
}

std::string markdown_code(std::string_view text) {
  // Entities are not read in a code span: the text goes as it is, less what
  // would end the span (a backtick), the table's cell (a pipe) or the line.
  std::string out = "`";
  for (const char c : text) {
    if (c == '`') out += '\'';
    else if (c == '|') out += "\\|";
    else if (c == '\n' || c == '\r') out += ' ';
    else out += c;
  }
  return out + "`";
}

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : markdown_text(text)) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

std::string render_markdown(const ReportInput& in) {
  std::string out;
  append_verdict(out, in);
  if (const auto* finding = verdict_finding(in.judgement)) append_evidence(out, *finding);
  append_needed(out, in.judgement.verdict);
  const auto incident = facts::find_incident(in.document);
  const auto* place = main_run(in, incident);
  std::optional<std::size_t> incident_process;
  if (place && incident && incident->run && incident->run->host == place->ref.host && incident->run->run == place->ref.run) {
    incident_process = incident->process;
  }
  out += render_ranks_markdown(ranks_table(in.document, incident));
  if (place) append_timeline(out, evidence::run_at(in.document, place->ref), incident_process);
  append_environment(out, in.facts);
  if (place) append_processes(out, evidence::run_at(in.document, place->ref));
  append_other_causes(out, in.judgement);
  if (place) append_console(out, evidence::run_at(in.document, place->ref));
  out += fmt::format("<sub>{} · {}</sub>\n", markdown_text(in.document.generator), markdown_code(in.command));
  return out;
}

}  // namespace ftdiag::report
