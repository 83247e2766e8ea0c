#include "report/report_html.h"

#include <fmt/format.h>

#include "facts/incident.h"
#include "report/memory_chart_svg.h"
#include "report/ranks_table.h"
#include "report/report_tables.h"
#include "report/verdict_text.h"
#include "rules/causes.h"

namespace ftdiag::report {

namespace {

constexpr std::size_t kHtmlConsoleLines = 40;

constexpr std::string_view kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto; max-width: 1000px; color: #111827; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin: 0 0 .3rem; color: #991b1b; }
h1.fine { color: #166534; }
h2 { font-size: 1.1rem; margin-top: 1.8rem; border-bottom: 1px solid #e5e7eb; }
.cause { color: #4b5563; font-family: ui-monospace, monospace; }
table { border-collapse: collapse; margin: .5rem 0; }
td, th { border: 1px solid #e5e7eb; padding: .25rem .6rem; text-align: left; vertical-align: top; }
code, pre { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 13px; }
pre { background: #f9fafb; padding: .6rem; overflow-x: auto; }
.chart { max-width: 100%; height: auto; display: block; }
.chart .tick, .chart .label { font: 12px sans-serif; fill: #374151; }
footer { margin-top: 2rem; color: #6b7280; font-size: 12px; }
)";

std::string list(const std::vector<std::string>& items, std::string_view tag) {
  if (items.empty()) return {};
  std::string out = fmt::format("<{}>\n", tag);
  for (const auto& item : items) out += "<li>" + html_escape(item) + "</li>\n";
  return out + fmt::format("</{}>\n", tag);
}

std::string verdict_section(const ReportInput& in) {
  const auto& v = in.judgement.verdict;
  std::string out = fmt::format("<header><h1 class=\"{}\" id=\"verdict\">{}</h1>\n", v.ended_normally ? "fine" : "", html_escape(verdict_headline(v)));
  if (!v.ended_normally && v.cause != rules::kUnknownCause) {
    out += fmt::format("<p class=\"cause\" data-cause=\"{0}\">{0}{1} · confidence {2}</p>\n", html_escape(v.cause),
                       v.scope ? " · scope " + html_escape(*v.scope) : "", confidence_percent(v.confidence));
  }
  out += "</header>\n<p>" + html_escape(v.summary) + "</p>\n";
  out += list(v.notes, "ul");
  if (const auto* f = verdict_finding(in.judgement)) {
    std::vector<std::string> reasons;
    for (const auto& s : f->supporting) reasons.push_back(s.says);
    for (const auto& s : f->contradicting) reasons.push_back("against: " + s.says);
    out += list(reasons, "ul");
    if (!f->remediation.empty()) out += "<h2>What to do</h2>\n" + list(f->remediation, "ol");
    if (!f->evidence.empty()) {
      out += "<h2>Evidence</h2>\n<table><tr><th>fact</th><th>value</th><th>from</th></tr>\n";
      for (const auto& c : f->evidence) {
        out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>\n", html_escape(c.fact), html_escape(c.display),
                           c.pointer.empty() ? "derived" : html_escape(c.pointer));
      }
      out += "</table>\n";
    }
  }
  if (!v.needed.empty()) {
    out += v.cause == rules::kUnknownCause ? "<h2>What would decide it</h2>\n<ol>\n" : "<h2>What would make it sure</h2>\n<ol>\n";
    for (const auto& need : v.needed) out += "<li>" + html_escape(need.what) + list(need.how, "ul") + "</li>\n";
    out += "</ol>\n";
  }
  return out;
}

std::string run_sections(const ReportInput& in) {
  if (in.runs.empty()) return {};
  const auto incident = facts::find_incident(in.document);
  const RunPlace* place = &in.runs.front();
  if (incident && incident->run) {
    for (const auto& p : in.runs) {
      if (p.ref.host == incident->run->host && p.ref.run == incident->run->run) place = &p;
    }
  }
  const auto& run = evidence::run_at(in.document, place->ref);
  std::string out = render_ranks_html(ranks_table(in.document, incident));
  if (auto svg = memory_chart_svg(run, in.facts); !svg.empty()) {
    out += "<h2>Memory</h2>\n<p>The job's memory cgroup usage and its processes' RSS, against the limit that kills; the phases its console named; "
           "each death that was not a clean exit.</p>\n" + svg;
  }
  if (auto svg = gpu_chart_svg(run); !svg.empty()) out += "<h2>GPU memory</h2>\n" + svg;
  if (auto svg = process_peaks_svg(run); !svg.empty()) out += "<h2>Peak memory per process</h2>\n" + svg;
  const auto deaths = abnormal_deaths(run);
  if (!deaths.empty()) {
    out += fmt::format("<details><summary>Processes that died abnormally ({})</summary>\n<table><tr><th>pid</th><th>role</th><th>how</th><th>at</th><th>command</th></tr>\n",
                       deaths.size());
    for (const auto& d : deaths) {
      out += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td></tr>\n", d.pid, html_escape(d.role), html_escape(d.how),
                         html_escape(d.at), html_escape(d.command));
    }
    out += "</table></details>\n";
  }
  const auto& tail = run.console.tail;
  if (!tail.empty()) {
    std::string body;
    for (std::size_t i = tail.size() > kHtmlConsoleLines ? tail.size() - kHtmlConsoleLines : 0; i < tail.size(); ++i) body += html_escape(tail[i].text) + "\n";
    out += fmt::format("<details><summary>The console's last {} lines</summary><pre>{}</pre></details>\n", std::min(tail.size(), kHtmlConsoleLines), body);
  }
  return out;
}

std::string environment_section(const facts::FactSet& facts) {
  const auto rows = environment_rows(facts);
  if (rows.empty()) return {};
  std::string out = "<h2>Environment</h2>\n<table>\n";
  for (const auto& [label, value] : rows) out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", html_escape(label), html_escape(value));
  return out + "</table>\n";
}

std::string other_causes(const rules::Judgement& judgement) {
  std::vector<std::string> items;
  for (const auto& f : judgement.findings) {
    if (f.rule == judgement.verdict.rule || f.cause == judgement.verdict.cause) continue;
    items.push_back(fmt::format("{}{} ({}, {}): {}", f.consequence_of ? "then: " : "", f.cause, f.rule, confidence_percent(f.confidence), f.summary));
  }
  for (const auto& c : judgement.checks) {
    if (c.severity != rules::Severity::info) items.push_back("risk of the environment: " + c.title + ": " + c.summary);
  }
  if (items.empty()) return {};
  return "<details><summary>Other causes considered, consequences and risks</summary>\n" + list(items, "ul") + "</details>\n";
}

}  // namespace

std::string render_html(const ReportInput& in) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>ftdiag: " + html_escape(verdict_headline(in.judgement.verdict)) + "</title>\n";
  out += "<style>" + std::string(kStyle) + "</style>\n</head>\n<body>\n";
  out += verdict_section(in);
  out += run_sections(in);
  out += environment_section(in.facts);
  out += other_causes(in.judgement);
  out += fmt::format("<footer>{} · <code>{}</code></footer>\n</body>\n</html>\n", html_escape(in.document.generator), html_escape(in.command));
  return out;
}

}  // namespace ftdiag::report
