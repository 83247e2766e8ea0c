// Facts from the last gasp: what the job's processes were running when
// memory neared its limit, before the incident. For a SIGKILL from the OOM
// killer this is the only view of the code that was allocating.
#include <fmt/format.h>

#include "base/units.h"
#include "facts/extract.h"
#include "facts/stack_text.h"
#include "parse/logs/faulthandler.h"

namespace ftdiag::facts {

namespace {

// A gasp long before the incident says little about what killed it.
constexpr double kGaspRelevantSeconds = 120;
constexpr double kClockSlack = 0.5;

const char* kGaspFacts[] = {"gasp.pressure", "gasp.reason", "gasp.largest", "gasp.python_stack", "gasp.python_function"};

// The frames of the thread that was running Python code (the main thread
// takes the signal, but may be waiting on another one).
const parse::PythonThread* busiest_thread(const parse::FaulthandlerDump& dump) {
  const parse::PythonThread* best = nullptr;
  for (const auto& thread : dump.threads) {
    if (thread.frames.empty()) continue;
    if (!best || (thread.current && !best->current)) best = &thread;
  }
  return best;
}

}  // namespace

void extract_gasp_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto focus = focus_run(document, incident);
  const evidence::RunEvidence* run = focus ? &evidence::run_at(document, *focus) : nullptr;
  const double until = incident && incident->time ? *incident->time + kClockSlack : 1e300;
  std::optional<std::size_t> last;
  if (run) {
    for (std::size_t i = 0; i < run->last_gasps.size(); ++i) {
      const auto& gasp = run->last_gasps[i];
      if (gasp.time <= until && (!incident || !incident->time || *incident->time - gasp.time <= kGaspRelevantSeconds)) last = i;
    }
  }
  if (!last) {
    const Missing why{MissingReason::not_present,
                      "memory never neared its limit before the incident (no last gasp), or the probes were off"};
    for (const char* name : kGaspFacts) facts.set_missing(name, why);
    return;
  }
  const auto& gasp = run->last_gasps[*last];
  const auto at = fmt::format("{}/last_gasps/{}", focus->pointer(), *last);
  facts.set("gasp.pressure", gasp.pressure, at + "/pressure");
  facts.set("gasp.reason", gasp.reason, at + "/reason");
  std::string largest;
  for (const auto& process : gasp.largest) {
    if (!largest.empty()) largest += ", ";
    largest += process.rss ? fmt::format("pid {} {}", process.pid, format_bytes(process.rss.value())) : fmt::format("pid {}", process.pid);
  }
  facts.set("gasp.largest", largest, at + "/largest");

  // The stacks taken since the gasps began, up to the incident: the
  // incident's process's latest, else the largest process's, else any. A
  // later gasp does not ask a process whose answer is still awaited, so the
  // answer may belong to an earlier gasp of the same climb.
  std::optional<int> incident_pid;
  if (incident && incident->process) incident_pid = run->processes[*incident->process].pid;
  double since = gasp.time;
  for (const auto& earlier : run->last_gasps) {
    if (earlier.time < since && (!incident || !incident->time || *incident->time - earlier.time <= kGaspRelevantSeconds)) {
      since = earlier.time;
    }
  }
  auto rank_of = [&](int pid) {
    if (incident_pid && pid == *incident_pid) return 2;
    return !gasp.largest.empty() && gasp.largest.front().pid == pid ? 1 : 0;
  };
  const evidence::PythonStacksTaken* chosen = nullptr;
  std::size_t chosen_index = 0;
  for (std::size_t i = 0; i < run->python_stacks.size(); ++i) {
    const auto& stacks = run->python_stacks[i];
    if (stacks.time < since || stacks.time > until) continue;
    if (!chosen || rank_of(stacks.pid) >= rank_of(chosen->pid)) {
      chosen = &stacks;
      chosen_index = i;
    }
  }
  const Missing no_stack{MissingReason::not_present, "no Python process answered the last gasp's request for its stacks"};
  if (!chosen) {
    facts.set_missing("gasp.python_stack", no_stack);
    facts.set_missing("gasp.python_function", no_stack);
    return;
  }
  const auto dump = parse::read_requested_dump(chosen->text);
  const auto* thread = dump ? busiest_thread(*dump) : nullptr;
  if (!thread) {
    facts.set_missing("gasp.python_stack", no_stack);
    facts.set_missing("gasp.python_function", no_stack);
    return;
  }
  const auto pointer = fmt::format("{}/python_stacks/{}/text", focus->pointer(), chosen_index);
  const auto frames = job_frames(thread->frames);
  if (frames.empty()) {
    facts.set_missing("gasp.python_stack", no_stack);
    facts.set_missing("gasp.python_function", no_stack);
    return;
  }
  facts.set("gasp.python_stack", fmt::format("pid {}: {}", chosen->pid, python_stack_text(frames, kPythonFramesAsText)), pointer);
  facts.set("gasp.python_function", frames.front().function, pointer);
}

}  // namespace ftdiag::facts
