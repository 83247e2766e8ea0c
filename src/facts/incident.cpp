#include "facts/incident.h"

#include <cmath>
#include <csignal>

#include <fmt/format.h>

#include "facts/kernel_match.h"
#include "facts/process_roles.h"

namespace ftdiag::facts {

using evidence::EvidenceDocument;
using evidence::LogEvent;
using evidence::RunRef;

std::string_view to_string(IncidentSource source) {
  switch (source) {
    case IncidentSource::journal: return "journal";
    case IncidentSource::kernel: return "kernel";
    case IncidentSource::log: return "log";
  }
  return "journal";
}

namespace {

std::optional<RunRef> first_run_of(const EvidenceDocument& document, std::size_t host) {
  if (!document.hosts[host].runs.empty()) return RunRef{host, 0};
  return std::nullopt;
}

bool job_succeeded(const evidence::RunEvidence& run) {
  return run.job_status && run.job_status->launcher_code() == 0;
}

// A job that succeeded has no death to explain, whatever died inside it: a
// job may kill its own helpers, and a launcher may restart a worker.
bool every_job_succeeded(const EvidenceDocument& document) {
  bool all = evidence::count_runs(document) > 0;
  evidence::for_each_run(document, [&](const RunRef&, const evidence::RunEvidence& run) { all = all && job_succeeded(run); });
  return all;
}

// A signal a launcher or scheduler sends to stop a job: a consequence more
// often than a cause.
bool is_stop_signal(int sig) { return sig == SIGTERM || sig == SIGINT || sig == SIGHUP; }

std::optional<Incident> earliest_journal_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
  evidence::for_each_run(document, [&](const RunRef& ref, const evidence::RunEvidence& run) {
    if (job_succeeded(run)) return;
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      const auto& death = run.processes[p].death;
      if (!death || !death->status || !death->status->signal) continue;
      // Deaths seen in one batch (one netlink read) share a time, which then
      // cannot order them: of those, a stop signal is the teardown of the
      // other death, not its cause.
      const bool tie_won = best && *best->time == death->time && is_stop_signal(best->status.signal.value_or(0)) &&
                           !is_stop_signal(*death->status->signal);
      if (best && *best->time <= death->time && !tie_won) continue;
      best = Incident{IncidentSource::journal, ref, p, fmt::format("{}/processes/{}/death", ref.pointer(), p),
                      death->time, death->status.value()};
    }
  });
  return best;
}

// Events with a time come first, by time; those without keep their source
// order after them (a log line without a timestamp cannot be placed).
bool earlier(const std::optional<double>& a, const std::optional<double>& b) {
  if (a && b) return *a < *b;
  return a.has_value() && !b.has_value();
}

// A launcher signalling the ranks that survived is the end of a failure, not
// its start; frames of a backtrace only follow the crash they describe.
bool reports_collateral(const LogEvent& event) {
  return event.kind == "launcher-teardown" || event.kind == "native-frame" || event.kind == "native-backtrace";
}

bool is_teardown_signal(int signal) { return signal == SIGTERM || signal == SIGINT || signal == SIGHUP; }

// Ranks of one job print on clocks that may differ a little (several hosts)
// and die within moments of each other once one has failed: within this
// much, a death by a fault or SIGKILL is taken as earlier than one by a
// teardown signal (SIGTERM from the launcher to the others).
constexpr double kClockSkewTolerance = 2.0;

bool earlier_death(const LogEvent& event, const Incident& best) {
  if (event.time && best.time && std::abs(*event.time - *best.time) <= kClockSkewTolerance) {
    const bool event_teardown = is_teardown_signal(*event.signal);
    const bool best_teardown = best.status.signal && is_teardown_signal(*best.status.signal);
    if (event_teardown != best_teardown) return best_teardown;
  }
  return earlier(event.time, best.time);
}

void consider_event(const EvidenceDocument& document, std::size_t host, IncidentSource source, const LogEvent& event,
                    std::string pointer, std::optional<Incident>& best) {
  if (!event.signal || reports_collateral(event)) return;
  if (best && !earlier_death(event, *best)) return;
  best = Incident{source, first_run_of(document, host), std::nullopt, std::move(pointer), event.time,
                  evidence::ExitStatus::killed(*event.signal), &event};
}

std::optional<Incident> earliest_event_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
  // Kernel records of a host with runs count only when attributed to a
  // process of a run: the log is the whole host's, other jobs die in it too.
  for (const auto& match : match_kernel_events(document)) {
    if (!document.hosts[match.host].runs.empty() && !match.run) continue;
    if (match.run && job_succeeded(evidence::run_at(document, *match.run))) continue;
    const auto before = best ? best->pointer : std::string();
    consider_event(document, match.host, IncidentSource::kernel, *match.event, match.pointer, best);
    if (best && best->pointer != before && match.run) {
      best->run = match.run;
      best->process = match.process;  // none for a process the run never saw
    }
  }
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    const auto& host = document.hosts[h];
    for (std::size_t f = 0; f < host.logs.size(); ++f) {
      const auto& events = host.logs[f].events;
      for (std::size_t i = 0; i < events.size(); ++i) {
        consider_event(document, h, IncidentSource::log, events[i], fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i), best);
      }
    }
  }
  return best;
}

std::uint64_t peak_of(const evidence::ProcessEvidence& p) { return std::max(p.vm_hwm.value_or(0), p.peak_rss.value_or(0)); }

// When the victim was not even seen (it lived between two scans), the kill
// is placed when the cgroup's sampled usage last peaked: the OOM killer acts
// at the limit.
Incident unseen_oom_death(const RunRef& ref, const evidence::RunEvidence& run, std::uint64_t kills) {
  std::optional<double> at;
  std::uint64_t highest = 0;
  for (const auto& point : run.timeline) {
    if (point.cgroup_usage && point.cgroup_usage.value() >= highest) {
      highest = point.cgroup_usage.value();
      at = point.time;
    }
  }
  Incident incident{IncidentSource::journal, ref, std::nullopt, ref.pointer() + "/memory/cgroup/oom_kill",
                    at, evidence::ExitStatus::killed(SIGKILL)};
  incident.inferred = fmt::format(
      "no process of the tree was seen dying, yet the job failed while its memory cgroup counted {} OOM kill(s){}", kills,
      at ? "; the time is when the cgroup's usage last peaked" : "");
  return incident;
}

// Without netlink (inside a pid namespace, or --no-netlink) a process reaped
// by its own parent leaves no status: ftdiag sees it vanish. When the run's
// cgroup counted OOM kills, the OOM killer's SIGKILL is what the counters
// say happened; its victim is the vanished process with the largest memory
// (the killer picks the largest), the earliest on a tie.
std::optional<Incident> inferred_oom_death(const EvidenceDocument& document) {
  std::optional<Incident> found;
  evidence::for_each_run(document, [&](const RunRef& ref, const evidence::RunEvidence& run) {
    if (found || job_succeeded(run)) return;
    const std::uint64_t kills = oom_kills_during(run);
    if (kills == 0) return;
    std::optional<std::size_t> victim;
    std::size_t vanished = 0;
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      const auto& death = run.processes[p].death;
      if (!death || death->status) continue;
      ++vanished;
      if (!victim) {
        victim = p;
        continue;
      }
      const auto& best = run.processes[*victim];
      const std::uint64_t peak = peak_of(run.processes[p]), best_peak = peak_of(best);
      if (peak > best_peak || (peak == best_peak && death->time < best.death->time)) victim = p;
    }
    if (!victim) {
      found = unseen_oom_death(ref, run, kills);
      return;
    }
    const auto& death = *run.processes[*victim].death;
    Incident incident{IncidentSource::journal, ref, *victim, fmt::format("{}/processes/{}/death", ref.pointer(), *victim),
                      death.time, evidence::ExitStatus::killed(SIGKILL)};
    incident.inferred = fmt::format(
        "it vanished without a wait status ({} of the tree did) while the job's memory cgroup counted {} OOM kill(s)",
        vanished == 1 ? std::string("the only process") : fmt::format("{} processes", vanished), kills);
    found = std::move(incident);
  });
  return found;
}

std::optional<Incident> first_failed_job(const EvidenceDocument& document) {
  std::optional<Incident> found;
  evidence::for_each_run(document, [&](const RunRef& ref, const evidence::RunEvidence& run) {
    if (found || !run.job_status || run.job_status->launcher_code() == 0) return;
    Incident incident{IncidentSource::journal, ref, std::nullopt, ref.pointer() + "/job_status",
                      run.ended ? run.ended->time : run.started.time, run.job_status.value()};
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      if (run.processes[p].pid == run.started.job_pid && run.processes[p].death) {
        incident.process = p;
        incident.time = run.processes[p].death->time;
      }
    }
    found = incident;
  });
  return found;
}

}  // namespace

std::uint64_t oom_kills_during(const evidence::RunEvidence& run) {
  const auto& m = run.memory;
  if (!m.cgroup_last || !m.cgroup_last->oom_kill) return 0;
  const std::uint64_t last = m.cgroup_last->oom_kill.value();
  const std::uint64_t before = m.cgroup_first && m.cgroup_first->oom_kill ? m.cgroup_first->oom_kill.value() : 0;
  return last - std::min(before, last);
}

namespace {

// A launcher tears the other ranks down when one fails: torch.multiprocessing
// and torchrun send SIGTERM (then SIGKILL) to the survivors a moment after a
// rank exits with an exception. That rank's exit, not the teardown signal, is
// what began the end.
constexpr double kTeardownAfterExitSeconds = 35;

std::optional<Incident> failed_rank_before(const EvidenceDocument& document, const Incident& death) {
  const int sig = death.status.signal.value_or(0);
  if (!death.run || !death.time || !(sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP)) return std::nullopt;
  const auto& run = evidence::run_at(document, *death.run);
  if (sig == SIGKILL && oom_kills_during(run) > 0) return std::nullopt;  // the OOM killer's, not a teardown
  const auto roles = process_roles(run);
  std::optional<Incident> found;
  for (std::size_t p = 0; p < run.processes.size(); ++p) {
    const auto& d = run.processes[p].death;
    if (!d || !d->status || d->status->signal || d->status->exit_code.value_or(0) == 0) continue;
    if (roles[p].role != "rank" || d->time > *death.time || *death.time - d->time > kTeardownAfterExitSeconds) continue;
    if (found && *found->time <= d->time) continue;
    found = Incident{IncidentSource::journal, death.run, p, fmt::format("{}/processes/{}/death", death.run->pointer(), p),
                     d->time, d->status.value()};
  }
  return found;
}

}  // namespace

std::optional<Incident> find_incident(const EvidenceDocument& document) {
  if (every_job_succeeded(document)) return std::nullopt;
  if (auto death = earliest_journal_death(document)) {
    if (auto exit = failed_rank_before(document, *death)) return exit;
    return death;
  }
  if (auto event = earliest_event_death(document)) return event;
  if (auto inferred = inferred_oom_death(document)) return inferred;
  return first_failed_job(document);
}

std::optional<RunRef> focus_run(const EvidenceDocument& document, const std::optional<Incident>& incident) {
  if (incident && incident->run) return incident->run;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    if (auto ref = first_run_of(document, h)) return ref;
  }
  return std::nullopt;
}

}  // namespace ftdiag::facts
