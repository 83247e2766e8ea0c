// Facts from the console: the training phase at the incident (from the phase
// stretches the evidence reader found) and the last lines.
#include <cctype>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "facts/console_tail.h"
#include "facts/extract.h"
#include "facts/probe_markers.h"

namespace ftdiag::facts {

namespace {

// Console timestamps and death timestamps come from the same clock, but a
// line can be read a moment after the death that followed it.
constexpr double kClockSlack = 0.5;

void set_rise_in_phase(FactSet& facts, const evidence::RunEvidence& run, double phase_began, const std::string& pointer) {
  // Did memory jump because of this phase, or was it climbing before?
  if (auto rise_start = facts.value_of<double>("memory.rise_start")) {
    const double began = run.started.time + *rise_start;
    facts.set("memory.rise_began_in_phase", began >= phase_began - kClockSlack, pointer);
  }
}

void set_level_before_phase(FactSet& facts, const evidence::RunEvidence& run, const std::string& run_pointer, double phase_began) {
  // What the job held as the phase began: the level the phase added to
  // (the memory model puts a save's copies on top of it). The lowest reading
  // of the seconds before, as training stands between its steps: ranks
  // that reach the save a moment before the console says so have already
  // begun their copies. Never before the stretch that preceded the phase
  // (training) began: start-up, still loading the model, held less. The
  // series the OOM killer judges: the cgroup's usage under a limit, else
  // the job's summed RSS.
  constexpr double kLevelWindowSeconds = 10;
  double from = phase_began - kLevelWindowSeconds;
  for (const auto& stretch : run.console.phases) {
    if (stretch.first_time < phase_began - kClockSlack) from = std::max(from, stretch.first_time);
  }
  const auto& cgroup = run.memory.cgroup_last;
  const bool use_cgroup = cgroup && cgroup->limit && cgroup->limit.value();
  std::optional<std::size_t> lowest;
  std::uint64_t lowest_bytes = 0;
  for (std::size_t i = 0; i < run.timeline.size() && run.timeline[i].time <= phase_began; ++i) {
    if (run.timeline[i].time < from) continue;
    const auto& value = use_cgroup ? run.timeline[i].cgroup_usage : run.timeline[i].job_rss;
    if (!value) continue;
    if (!lowest || value.value() < lowest_bytes) {
      lowest = i;
      lowest_bytes = value.value();
    }
  }
  if (lowest) {
    facts.set("memory.before_phase_at_death_bytes", static_cast<std::int64_t>(lowest_bytes),
              fmt::format("{}/timeline/{}/{}", run_pointer, *lowest, use_cgroup ? "cgroup_usage_bytes" : "job_rss_bytes"));
  }
}

void extract_phase_at(const evidence::RunEvidence& run, const std::string& at, double time, std::optional<int> pid,
                      FactSet& facts) {
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
  // A framework call the Python probe saw open is the framework's own word
  // for the phase: it outranks the console's lines.
  if (auto call = open_call_at(run, pid, time)) {
    const auto pointer = fmt::format("{}/probe_markers/{}", at, call->index);
    facts.set("phase.at_death", call->phase, pointer + "/phase");
    facts.set("phase.at_death_line",
              fmt::format("{}{} began (the Python probe's marker, pid {}{})", call->what,
                          call->inner.empty() ? "" : ", inside it " + call->inner, call->pid,
                          call->rank ? fmt::format(", rank {}", *call->rank) : ""),
              pointer + "/what");
    facts.set("phase.at_death_age", std::max(0.0, time - call->began), pointer + "/time");
    facts.set("phase.source", std::string("probe"), pointer);
    set_rise_in_phase(facts, run, call->began, pointer + "/time");
    set_level_before_phase(facts, run, at, call->began);
    return;
  }
  if (!current) {
    facts.set_missing("phase.at_death", Missing{MissingReason::not_present, "no console line marked a training phase before the incident"});
    return;
  }
  const auto pointer = fmt::format("{}/console/phases/{}", at, index);
  facts.set("phase.at_death", current->phase, pointer + "/phase");
  facts.set("phase.at_death_line", current->first_line, pointer + "/first_line");
  facts.set("phase.at_death_age", std::max(0.0, time - current->first_time), pointer + "/first_time");
  facts.set("phase.source", std::string("console"), pointer);
  set_rise_in_phase(facts, run, current->first_time, pointer + "/first_time");
  set_level_before_phase(facts, run, at, current->first_time);
}

// The exception a Python traceback ended with: the first line of the same
// stream after the last "Traceback (most recent call last):" that is not
// indented (the frames and their code are), with the prefix the traceback line had removed
// (torchrun's "[rank0]: ", a logger's timestamp). Index into the tail.
// With `until`, only tracebacks that ended by then count: what a process
// reported before the incident, not the launcher's re-raise after it.
std::optional<std::size_t> last_exception_line(const std::vector<evidence::ConsoleLine>& tail, std::string& exception,
                                               std::optional<double> until = std::nullopt) {
  constexpr std::string_view kTraceback = "Traceback (most recent call last):";
  for (std::size_t t = tail.size(); t-- > 0;) {
    if (until && tail[t].time > *until) continue;
    const std::string_view line = tail[t].text;
    const auto at = line.find(kTraceback);
    if (at == std::string_view::npos) continue;
    const std::string_view prefix = line.substr(0, at);
    for (std::size_t i = t + 1; i < tail.size(); ++i) {
      // The other stream's lines interleave as they were relayed (a
      // block-buffered stdout flushed at exit lands inside the traceback).
      if (tail[i].stream != tail[t].stream) continue;
      std::string_view text = tail[i].text;
      if (text.substr(0, prefix.size()) == prefix) text.remove_prefix(prefix.size());
      if (text.empty() || text.front() == ' ' || text.front() == '\t') continue;
      const bool named = std::isalpha(static_cast<unsigned char>(text.front())) || text.front() == '_';
      if (!named || (until && tail[i].time > *until)) return std::nullopt;
      exception = std::string(text);
      return i;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

void extract_phase_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  if (!focus) return;
  const auto& run = evidence::run_at(document, *focus);
  const auto at = focus->pointer();
  if (!run.console.readable) {
    for (const char* name : {"phase.at_death", "phase.checkpoint_saves_before", "console.tail", "console.lines", "console.exception",
                             "console.exception_before_death", "console.last_line"}) {
      facts.set_missing(name, run.console.readable.missing());
    }
    return;
  }
  facts.set("console.lines", static_cast<std::int64_t>(run.console.line_count), at + "/console/line_count");
  const auto& tail = run.console.tail;
  facts.set("console.tail", console_tail_text(tail), at + "/console/tail");
  for (std::size_t i = tail.size(); i-- > 0;) {
    if (tail[i].text.find_first_not_of(" \t\r") == std::string::npos) continue;
    facts.set("console.last_line", tail[i].text, fmt::format("{}/console/tail/{}/text", at, i));
    break;
  }
  // The failure word of the first of the console's last lines that holds one,
  // as for a plain log (extract_plain_logs.cpp): the fallback rules' words.
  if (const auto index = first_worded_line(tail)) {
    facts.set("log.word", *tail[*index].word, fmt::format("{}/console/tail/{}/word", at, *index));
    facts.set("log.word_line", line_excerpt(tail[*index].text), fmt::format("{}/console/tail/{}/text", at, *index));
  } else {
    const Missing none{MissingReason::not_present, "no failure word in the console's last lines"};
    facts.set_missing("log.word", none);
    facts.set_missing("log.word_line", none);
  }
  std::string exception;
  if (auto index = last_exception_line(tail, exception)) {
    facts.set("console.exception", std::move(exception), fmt::format("{}/console/tail/{}/text", at, *index));
  } else {
    facts.set_missing("console.exception", Missing{MissingReason::not_present, "no Python traceback in the console's last lines"});
  }
  if (incident && incident->time) {
    // Ranks that fail together race to die: the one whose error started it
    // may be torn down after a peer that aborted on the broken collective.
    // What was reported before the first death is the first error in time.
    std::string before;
    if (auto index = last_exception_line(tail, before, *incident->time + kClockSlack)) {
      facts.set("console.exception_before_death", std::move(before), fmt::format("{}/console/tail/{}/text", at, *index));
    } else {
      facts.set_missing("console.exception_before_death",
                        Missing{MissingReason::not_present, "no Python traceback in the console ended before the incident"});
    }
    std::optional<int> pid;
    if (incident->process) {
      const auto& process = run.processes[*incident->process];
      pid = process.nspid.empty() ? process.pid : process.nspid.back();
    }
    extract_phase_at(run, at, *incident->time, pid, facts);
  }
}

}  // namespace ftdiag::facts
