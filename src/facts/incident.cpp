#include "facts/incident.h"

#include <algorithm>
#include <cmath>
#include <csignal>

#include <fmt/format.h>

#include "facts/kernel_match.h"
#include "facts/node_clocks.h"
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

// Deaths in the runs of different nodes (or of ranks each under its own
// ftdiag) this close on the common clock cannot be ordered by their times
// alone: of those, a death by a fault or SIGKILL is taken as earlier than one
// by a stop signal (a launcher's or Slurm's teardown of the others).
constexpr double kAcrossRunsTolerance = 2.0;

std::optional<Incident> earliest_journal_death(const EvidenceDocument& document) {
  const auto clocks = NodeClocks::estimate(document);
  std::optional<Incident> best;
  double best_common = 0;  // best's time on the common clock of the job's nodes
  evidence::for_each_run(document, [&](const RunRef& ref, const evidence::RunEvidence& run) {
    if (job_succeeded(run)) return;
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      const auto& death = run.processes[p].death;
      if (!death || !death->status || !death->status->signal) continue;
      const double common = clocks.common(document, ref, death->time);
      const int sig = *death->status->signal;
      const bool best_stops = best && is_stop_signal(best->status.signal.value_or(0));
      const bool other_run = best && (best->run->host != ref.host || best->run->run != ref.run);
      // Deaths seen in one batch (one netlink read) share a time, which then
      // cannot order them: of those, a stop signal is the teardown of the
      // other death, not its cause. Across runs, so are deaths a moment apart.
      const double tolerance = other_run ? kAcrossRunsTolerance : 0.0;
      const bool tie_won = best_stops && !is_stop_signal(sig) && std::fabs(common - best_common) <= tolerance;
      const bool tie_lost = best && !best_stops && is_stop_signal(sig) && other_run && best_common - common <= tolerance;
      if (tie_lost || (best && best_common <= common && !tie_won)) continue;
      best = Incident{IncidentSource::journal, ref, p, fmt::format("{}/processes/{}/death", ref.pointer(), p),
                      death->time, death->status.value()};
      best_common = common;
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
// its start; frames of a backtrace only follow the crash they describe (what
// a kind means is declared in rules/log-events.json).
bool reports_collateral(const LogEvent& event) { return event.means == "teardown" || event.means == "detail"; }

bool is_teardown_signal(int signal) { return signal == SIGTERM || signal == SIGINT || signal == SIGHUP; }

// Ranks of one job print on clocks that may differ a little (several hosts)
// and die within moments of each other once one has failed: within this
// much, a death by a fault or SIGKILL is taken as earlier than one by a
// teardown signal (SIGTERM from the launcher to the others).
constexpr double kClockSkewTolerance = 2.0;

// A launcher notices a rank's death at its next poll (DeepSpeed's and
// torchrun's every second or few, a shell at once); a kill logged longer than
// this before the death a log reports is another death.
constexpr double kKillReportedWithin = 60.0;

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

// The deaths the logs report (a launcher's "exits with return code = -9", a
// shell's "Killed"), the earliest first.
std::optional<Incident> earliest_log_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
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

Incident kernel_incident(const EvidenceDocument& document, const KernelMatch& match, std::string because) {
  Incident incident{IncidentSource::kernel, first_run_of(document, match.host), std::nullopt, match.pointer, match.event->time,
                    evidence::ExitStatus::killed(*match.event->signal), match.event};
  incident.chosen_because = std::move(because);
  return incident;
}

std::string seconds_text(double seconds) {
  if (seconds < 1) return "less than a second";
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// Kills of one OOM episode: the killer takes victims until memory is free
// again, within moments. The first victim of an episode is its death; the
// others follow from the same shortage.
constexpr double kEpisodeSeconds = 60.0;

// The kills grouped by episode, in the log's order of time; kills without a
// time (boot-relative stamps and no boot time) form one episode of their own,
// placed after the timed ones.
std::vector<std::vector<const KernelMatch*>> oom_episodes(std::vector<const KernelMatch*> kills) {
  std::stable_sort(kills.begin(), kills.end(), [](const KernelMatch* a, const KernelMatch* b) {
    return earlier(a->event->time, b->event->time);
  });
  std::vector<std::vector<const KernelMatch*>> episodes;
  for (const auto* kill : kills) {
    const auto& at = kill->event->time;
    const auto* previous = episodes.empty() ? nullptr : episodes.back().back();
    const bool same_episode = previous && (at ? previous->event->time && *at - *previous->event->time <= kEpisodeSeconds
                                              : !previous->event->time);
    if (!same_episode) episodes.emplace_back();
    episodes.back().push_back(kill);
  }
  return episodes;
}

// Which of the kernel's kills, in a kernel log read on its own (no run to tie
// it to), is the job's death. A node's log holds every kill since boot, other
// jobs' and older runs' too; the job's own log says when (and often which
// pid) it died: the kill with that pid, else the episode that ended shortly
// before that death. With no time in the logs to match, the last episode: a
// kernel log is read after the death it is meant to explain.
std::optional<Incident> standalone_kernel_death(const EvidenceDocument& document, const std::vector<const KernelMatch*>& kills,
                                                const std::optional<Incident>& log_death) {
  if (kills.empty()) return std::nullopt;
  const LogEvent* reported = log_death ? log_death->event : nullptr;
  const auto episodes = oom_episodes(kills);
  if (reported && reported->pid) {
    for (const auto& episode : episodes) {
      for (const auto* kill : episode) {
        if (kill->event->pid != reported->pid) continue;
        // The first victim of that kill's episode: the DataLoader names the
        // worker it lost, the killer may have taken a sibling first.
        const auto* first = episode.front();
        return kernel_incident(document, *first,
                               first == kill ? fmt::format("pid {}, the pid the log reports dying", *reported->pid)
                                             : fmt::format("being the first kill of the OOM episode that took pid {}, the "
                                                           "pid the log reports dying",
                                                           *reported->pid));
      }
    }
  }
  if (log_death && log_death->time) {
    // The last episode whose last kill came in the moments before the death.
    const std::vector<const KernelMatch*>* chosen = nullptr;
    double last_kill = 0;
    for (const auto& episode : episodes) {
      std::optional<double> latest;
      for (const auto* kill : episode) {
        const auto& at = kill->event->time;
        if (at && *at <= *log_death->time + kClockSkewTolerance) latest = std::max(latest.value_or(*at), *at);
      }
      if (latest && *log_death->time - *latest <= kKillReportedWithin) {
        chosen = &episode;
        last_kill = *latest;
      }
    }
    if (chosen) {
      const double gap = *log_death->time - last_kill;
      return kernel_incident(document, *chosen->front(),
                             gap >= 1 ? fmt::format("its time, {} before the death the log reports", seconds_text(gap))
                                      : "its time, the moment of the death the log reports");
    }
    // Every kill with a time is far from the death, so none is this job's;
    // kills without one cannot be placed and are weighed by the rules.
    return std::nullopt;
  }
  const auto* last = episodes.back().front();
  if (episodes.size() == 1) return kernel_incident(document, *last, "");
  return kernel_incident(document, *last,
                         fmt::format("being the last of {} OOM episodes in the kernel's log (the job's logs give no time to "
                                     "match it by)",
                                     episodes.size()));
}

std::optional<Incident> earliest_event_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
  std::vector<const KernelMatch*> standalone;
  const auto matches = match_kernel_events(document);
  // Kernel records of a host with runs count only when attributed to a
  // process of a run: the log is the whole host's, other jobs die in it too.
  for (const auto& match : matches) {
    if (!document.hosts[match.host].runs.empty() && !match.run) continue;
    if (match.run && job_succeeded(evidence::run_at(document, *match.run))) continue;
    if (!match.run) {
      if (match.event->signal && !reports_collateral(*match.event)) standalone.push_back(&match);
      continue;
    }
    const auto before = best ? best->pointer : std::string();
    consider_event(document, match.host, IncidentSource::kernel, *match.event, match.pointer, best);
    if (best && best->pointer != before) {
      best->run = match.run;
      best->process = match.process;  // none for a process the run never saw
    }
  }
  // A kill chosen for the death a log reports explains that death: it takes
  // the log's place.
  const auto log_death = earliest_log_death(document);
  auto standalone_death = standalone_kernel_death(document, standalone, log_death);
  if (!standalone_death) standalone_death = log_death;
  if (standalone_death && (!best || earlier_death(*standalone_death->event, *best))) best = std::move(standalone_death);
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
