#include "report/text_report.h"

#include <fmt/format.h>

#include "facts/incident.h"
#include "report/ranks_table.h"
#include "report/run_summary.h"
#include "report/verdict_text.h"

namespace ftdiag::report {

namespace {

// The run the verdict is about: the incident's, else the first.
std::size_t run_of_incident(const TextReportInput& input, const std::optional<facts::Incident>& incident) {
  if (incident && incident->run) {
    for (std::size_t i = 0; i < input.runs.size(); ++i) {
      if (input.runs[i].ref.host == incident->run->host && input.runs[i].ref.run == incident->run->run) return i;
    }
  }
  return 0;
}

// The incident's process, when it died in this run.
std::optional<std::size_t> incident_process(const RunPlace& place, const std::optional<facts::Incident>& incident) {
  if (!incident || !incident->run || !incident->process) return std::nullopt;
  if (incident->run->host != place.ref.host || incident->run->run != place.ref.run) return std::nullopt;
  return incident->process;
}

}  // namespace

std::string render_text_report(const TextReportInput& input, const TextStyle& style) {
  std::string out = render_verdict(input.judgement, style);
  const auto incident = facts::find_incident(input.document);
  if (!input.runs.empty()) {
    out += '\n';
    if (style.verbose) {
      for (const auto& place : input.runs) {
        out += render_run_summary(evidence::run_at(input.document, place.ref), place.path, style, incident_process(place, incident));
      }
    } else {
      const auto& place = input.runs[run_of_incident(input, incident)];
      out += render_run_summary(evidence::run_at(input.document, place.ref), place.path, style, incident_process(place, incident));
      if (input.runs.size() > 1) {
        out += toned(style, Tone::quiet, fmt::format("  ({} other run{} of the job: --verbose)", input.runs.size() - 1,
                                                     input.runs.size() == 2 ? "" : "s")) +
               "\n";
      }
    }
  }
  if (input.runs.size() > 1) {
    if (auto ranks = render_ranks_text(ranks_table(input.document, incident), style); !ranks.empty()) out += ranks;
  }
  for (const auto& line : input.problems) out += wrap(line, style.width, "  ", "    ");
  if (style.verbose) {
    for (const auto& line : input.not_read) out += wrap("not read: " + line, style.width, "  ", "    ");
  }
  out += render_verdict_context(input.judgement, style);
  if (!style.verbose && !input.more_command.empty()) {
    out += toned(style, Tone::quiet, wrap(fmt::format("more (the evidence's sources, every process, other causes): {}", input.more_command),
                                          style.width, "  ", "    "));
  }
  return out;
}

}  // namespace ftdiag::report
