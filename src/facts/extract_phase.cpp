// Facts from the console: the training phase at the incident (from the phase
// stretches the evidence reader found) and the last lines.
#include <fmt/format.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

constexpr std::size_t kTailLinesAsFact = 60;
// Console timestamps and death timestamps come from the same clock, but a
// line can be read a moment after the death that followed it.
constexpr double kClockSlack = 0.5;

void extract_phase_at(const evidence::RunEvidence& run, const std::string& at, double time, FactSet& facts) {
  const auto& phases = run.console.phases;
  const evidence::PhaseStretch* current = nullptr;
  std::size_t index = 0;
  std::int64_t saves = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    if (phases[i].first_time > time + kClockSlack) break;
    current = &phases[i];
    index = i;
    saves += phases[i].phase == "checkpoint-save";
  }
  facts.set("phase.checkpoint_saves_before", saves, at + "/console/phases");
  if (!current) {
    facts.set_missing("phase.at_death", Missing{MissingReason::not_present, "no console line marked a training phase before the incident"});
    return;
  }
  const auto pointer = fmt::format("{}/console/phases/{}", at, index);
  facts.set("phase.at_death", current->phase, pointer + "/phase");
  facts.set("phase.at_death_line", current->first_line, pointer + "/first_line");
  facts.set("phase.at_death_age", std::max(0.0, time - current->first_time), pointer + "/first_time");
}

}  // namespace

void extract_phase_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  if (!focus) return;
  const auto& run = evidence::run_at(document, *focus);
  const auto at = focus->pointer();
  if (!run.console.readable) {
    for (const char* name : {"phase.at_death", "phase.checkpoint_saves_before", "console.tail", "console.lines"}) {
      facts.set_missing(name, run.console.readable.missing());
    }
    return;
  }
  facts.set("console.lines", static_cast<std::int64_t>(run.console.line_count), at + "/console/line_count");
  const auto& tail = run.console.tail;
  std::string text;
  for (std::size_t i = tail.size() > kTailLinesAsFact ? tail.size() - kTailLinesAsFact : 0; i < tail.size(); ++i) {
    text += tail[i].text;
    text += '\n';
  }
  facts.set("console.tail", std::move(text), at + "/console/tail");
  if (incident && incident->time) extract_phase_at(run, at, *incident->time, facts);
}

}  // namespace ftdiag::facts
