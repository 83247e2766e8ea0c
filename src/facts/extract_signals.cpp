// Facts about who sent the signals that ended the job: the kernel's
// signal_generate tracepoint names the sender of a signal to any process of
// the job (as root), and signalfd names the sender of one to ftdiag itself.
#include <algorithm>
#include <cmath>
#include <csignal>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

using evidence::RunEvidence;
using evidence::SignalReceived;
using evidence::SignalSent;

// A signal is generated before the death it causes; the death is seen a
// poll later.
constexpr double kBeforeDeathTolerance = 30 * 60;  // a SIGTERM may precede its grace period's SIGKILL by minutes
constexpr double kAfterDeathTolerance = 2;

std::string describe_received(const SignalReceived& s) {
  if (s.sender_pid <= 0) return "the kernel or a process outside ftdiag's pid namespace";
  return fmt::format("pid {}{}, uid {}", s.sender_pid, s.sender_comm.empty() ? "" : fmt::format(" ({})", s.sender_comm),
                     s.sender_uid);
}

bool in_tree(const RunEvidence& run, int pid) {
  return std::any_of(run.processes.begin(), run.processes.end(), [&](const auto& p) { return p.pid == pid; });
}

// The last signal of the death's kind generated for its process before it died.
const SignalSent* signal_for_death(const RunEvidence& run, const evidence::ProcessEvidence& p, int signal, double time,
                                   std::size_t& index) {
  const SignalSent* found = nullptr;
  for (std::size_t i = 0; i < run.signals.size(); ++i) {
    const auto& s = run.signals[i];
    if (s.signal != signal || s.time > time + kAfterDeathTolerance || s.time < time - kBeforeDeathTolerance) continue;
    if (s.target_pid != p.pid && std::find(p.nspid.begin(), p.nspid.end(), s.target_pid) == p.nspid.end()) continue;
    found = &s;
    index = i;
  }
  return found;
}

void set_missing_all(FactSet& facts, std::initializer_list<const char*> names, const Missing& why) {
  for (const char* name : names) facts.set_missing(name, why);
}

const std::initializer_list<const char*> kSenderFacts = {"death.sender", "death.sender_pid", "death.sender_comm",
                                                         "death.sent_by_kernel", "death.sender_in_job"};

void extract_sender(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  if (!incident || !incident->run || !incident->process || !incident->status.signal || !incident->time) {
    set_missing_all(facts, kSenderFacts, Missing{MissingReason::not_present, "no death by a signal of a watched process"});
    return;
  }
  const auto& run = evidence::run_at(document, *incident->run);
  auto trace = run.started.mechanisms.find("signal-trace");
  if (trace == run.started.mechanisms.end() || !trace->second) {
    set_missing_all(facts, kSenderFacts,
                    trace == run.started.mechanisms.end()
                        ? Missing{MissingReason::not_present, "the run did not trace signals"}
                        : trace->second.missing());
    return;
  }
  const auto& p = run.processes[*incident->process];
  std::size_t index = 0;
  const auto* sent = signal_for_death(run, p, *incident->status.signal, *incident->time, index);
  if (!sent) {
    set_missing_all(facts, kSenderFacts,
                    Missing{MissingReason::not_present, "the tracer saw no such signal generated for the process"});
    return;
  }
  const auto pointer = fmt::format("{}/signals/{}", incident->run->pointer(), index);
  // si_code > 0: the kernel generated it (SI_KERNEL 0x80 for the OOM killer
  // and a general protection fault, SEGV_MAPERR 1 for a bad address, ...);
  // 0 and below: a process did (kill, tgkill, sigqueue).
  const bool kernel = sent->code > 0;
  facts.set("death.sent_by_kernel", kernel, pointer + "/code");
  if (kernel) {
    facts.set("death.sender", std::string("the kernel"), pointer);
    set_missing_all(facts, {"death.sender_pid", "death.sender_comm", "death.sender_in_job"},
                    Missing{MissingReason::not_present, "the kernel sent it (the OOM killer, or a fault)"});
    return;
  }
  // ftdiag passing on a signal it received: the sender is who sent that.
  if (sent->sender_pid == run.started.supervisor_pid) {
    const SignalReceived* origin = nullptr;
    for (const auto& r : run.received_signals) {
      if (r.forwarded && r.signal == sent->signal && r.time <= sent->time + kAfterDeathTolerance) origin = &r;
    }
    if (origin) {
      facts.set("death.sender", fmt::format("{}, forwarded by ftdiag", describe_received(*origin)), pointer);
      facts.set("death.sender_pid", std::int64_t{origin->sender_pid}, pointer);
      facts.set("death.sender_comm", origin->sender_comm, pointer);
      facts.set("death.sender_in_job", false, pointer);
      return;
    }
  }
  facts.set("death.sender", fmt::format("pid {} ({})", sent->sender_pid, sent->sender_comm), pointer);
  facts.set("death.sender_pid", std::int64_t{sent->sender_pid}, pointer + "/sender_pid");
  facts.set("death.sender_comm", sent->sender_comm, pointer + "/sender_comm");
  facts.set("death.sender_in_job", in_tree(run, sent->sender_pid) && sent->sender_pid != run.started.supervisor_pid,
            pointer + "/sender_pid");
}

void extract_oom_daemons(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto ref = focus_run(document, incident);
  if (!ref) {
    facts.set_missing("node.oom_daemons", Missing{MissingReason::not_present, "no run"});
    return;
  }
  const auto& daemons = evidence::run_at(document, *ref).started.oom_daemons;
  if (!daemons) {
    facts.set_missing("node.oom_daemons", daemons.missing());
    return;
  }
  const auto& job = evidence::run_at(document, *ref).started.scheduler_job;
  if (job.empty()) {
    facts.set_missing("job.scheduler_job", Missing{MissingReason::not_present, "no scheduler's job id in ftdiag's environment"});
  } else {
    facts.set("job.scheduler_job", job, ref->pointer() + "/started/scheduler_job");
  }
  facts.set("node.oom_daemons", daemons->empty() ? std::string("none") : fmt::format("{}", fmt::join(daemons.value(), ", ")),
            ref->pointer() + "/started/oom_daemons");
}

void extract_received(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto ref = focus_run(document, incident);
  if (!ref) {
    set_missing_all(facts, {"job.signals_received", "job.signal_sender", "job.signal_sender_comm"},
                    Missing{MissingReason::not_present, "no run"});
    return;
  }
  const auto& run = evidence::run_at(document, *ref);
  if (run.started.journal_format.value_or(1) < 4) {
    set_missing_all(facts, {"job.signals_received", "job.signal_sender", "job.signal_sender_comm"},
                    Missing{MissingReason::not_present, "journals before format 4 do not record the senders of signals"});
    return;
  }
  facts.set("job.signals_received", static_cast<std::int64_t>(run.received_signals.size()), ref->pointer() + "/received_signals");
  if (run.received_signals.empty()) {
    set_missing_all(facts, {"job.signal_sender", "job.signal_sender_comm"},
                    Missing{MissingReason::not_present, "ftdiag received no signal"});
    return;
  }
  const auto& first = run.received_signals.front();
  const auto pointer = ref->pointer() + "/received_signals/0";
  facts.set("job.signal_sender", fmt::format("{} sent {}{}", describe_received(first), evidence::signal_name(first.signal),
                                             first.sender_command.empty() ? "" : fmt::format(" ({})", first.sender_command)),
            pointer);
  if (first.sender_comm.empty()) {
    facts.set_missing("job.signal_sender_comm", Missing{MissingReason::not_present, "the sender was gone, or outside ftdiag's view"});
  } else {
    facts.set("job.signal_sender_comm", first.sender_comm, pointer + "/sender_comm");
  }
}

}  // namespace

void extract_signal_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  extract_sender(document, incident, facts);
  extract_received(document, incident, facts);
  extract_oom_daemons(document, incident, facts);
}

}  // namespace ftdiag::facts
