#include "facts/kernel_match.h"

#include <algorithm>
#include <cmath>
#include <csignal>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "evidence/kernel_events.h"

namespace ftdiag::facts {

using evidence::EvidenceDocument;
using evidence::LogEvent;
using evidence::ProcessEvidence;
using evidence::RunEvidence;
using evidence::RunRef;

namespace {

// ftdiag's clock readings and the kernel's stamps converted with the boot
// time differ by the polling delay; a kill is logged around its death.
constexpr double kTimeTolerance = 10;
// A kill read from a report cut short and from the whole report: the summary
// and the kill line are printed in the same moment.
constexpr double kSameKillSeconds = 2;

bool alive_at(const ProcessEvidence& p, std::optional<double> time) {
  if (!time) return true;
  if (*time < p.first_seen - kTimeTolerance) return false;
  return !p.death || *time <= p.death->time + kTimeTolerance;
}

std::optional<std::size_t> by_pid(const RunEvidence& run, const LogEvent& event, std::string& matched_by) {
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const auto& p = run.processes[i];
    if (!alive_at(p, event.time)) continue;
    if (p.pid == *event.pid) {
      matched_by = "pid";
      return i;
    }
    if (std::find(p.nspid.begin(), p.nspid.end(), *event.pid) != p.nspid.end()) {
      matched_by = "namespace pid";
      return i;
    }
  }
  return std::nullopt;
}

// The memory cgroup the run's job lived in, as ftdiag saw its path.
std::string run_cgroup(const RunEvidence& run) {
  if (run.memory.cgroup_last) return run.memory.cgroup_last->path;
  if (run.memory.cgroup_first) return run.memory.cgroup_first->path;
  return {};
}

// Paths seen from different cgroup namespaces share their tail: "/a/b/job"
// on the host is "/job" or "/" inside.
bool same_cgroup(const std::string& ours, const std::string& kernels) {
  if (ours.empty() || kernels.empty() || ours == "/") return false;
  if (ours == kernels) return true;
  const auto tail = [](const std::string& longer, const std::string& shorter) {
    return longer.size() > shorter.size() && longer.ends_with(shorter) && longer[longer.size() - shorter.size() - 1] == '/';
  };
  return tail(kernels, ours) || tail(ours, kernels);
}


// An OOM kill in the run's cgroup whose pid means nothing here: the process
// that died by SIGKILL (or vanished) closest to the kill, within the tolerance.
std::optional<std::size_t> by_cgroup_and_time(const RunEvidence& run, const LogEvent& event) {
  if (event.kind != "oom-kill" || !event.time) return std::nullopt;
  const auto cgroup = run_cgroup(run);
  if (!same_cgroup(cgroup, event.detail("task_memcg")) && !same_cgroup(cgroup, event.detail("oom_memcg"))) return std::nullopt;
  std::optional<std::size_t> best;
  double best_gap = kTimeTolerance;
  for (std::size_t i = 0; i < run.processes.size(); ++i) {
    const auto& death = run.processes[i].death;
    if (!death) continue;
    const bool sigkilled = !death->status || death->status->signal == SIGKILL;
    const double gap = std::abs(death->time - *event.time);
    if (sigkilled && gap <= best_gap) {
      best = i;
      best_gap = gap;
    }
  }
  return best;
}

void attribute(const EvidenceDocument& document, std::size_t host, KernelMatch& match) {
  const auto& event = *match.event;
  for (std::size_t r = 0; r < document.hosts[host].runs.size(); ++r) {
    const auto& run = document.hosts[host].runs[r];
    std::string matched_by;
    std::optional<std::size_t> process;
    if (event.pid) process = by_pid(run, event, matched_by);
    if (!process) {
      process = by_cgroup_and_time(run, event);
      if (process) matched_by = "cgroup and time";
    }
    if (process) {
      match.run = RunRef{host, r};
      match.process = process;
      match.matched_by = matched_by;
      return;
    }
  }
  // An OOM kill of a process the run never saw (it lived between two scans,
  // the journal was cut) still belongs to the run when it happened while the
  // run watched and in its cgroup, or when the record names no cgroup.
  if (event.kind != "oom-kill" || !event.time) return;
  for (std::size_t r = 0; r < document.hosts[host].runs.size(); ++r) {
    const auto& run = document.hosts[host].runs[r];
    const double end = run.ended ? run.ended->time : (run.timeline.empty() ? run.started.time : run.timeline.back().time);
    if (*event.time < run.started.time || *event.time > end + kTimeTolerance) continue;
    const auto memcg = event.detail("task_memcg").empty() ? event.detail("oom_memcg") : event.detail("task_memcg");
    if (!memcg.empty() && !same_cgroup(run_cgroup(run), memcg)) continue;
    match.run = RunRef{host, r};
    match.matched_by = memcg.empty() ? "time" : "cgroup and time";
    return;
  }
}

}  // namespace

std::vector<KernelMatch> match_kernel_events(const EvidenceDocument& document) {
  std::vector<KernelMatch> matches;
  std::set<std::tuple<std::size_t, std::string, std::optional<int>, std::string>> seen;
  // The same record read twice has the same text. An OOM kill is also known
  // by its victim and its time: a report cut short before its kill line
  // (read live as the kernel wrote it, or pasted) and the whole report are the
  // same kill, and the whole one, with the kill line's numbers, is kept.
  auto cut_short = [](const evidence::LogEvent& event) {
    const std::string report = event.detail("report");
    return report == evidence::kReportWithoutKillLine || report == evidence::kReportWithoutVictim;
  };
  auto close_in_time = [](const evidence::LogEvent& a, const evidence::LogEvent& b) {
    return !a.time || !b.time || std::fabs(*a.time - *b.time) <= kSameKillSeconds;
  };
  // The matches of OOM kills by host and victim: a log's other records never
  // pay for this.
  std::map<std::pair<std::size_t, int>, std::vector<std::size_t>> kills_by_victim;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    const auto& host = document.hosts[h];
    auto consider = [&](const evidence::KernelLogEvidence& kernel, const std::string& base) {
      for (std::size_t i = 0; i < kernel.records.size(); ++i) {
        const auto& event = kernel.records[i];
        if (!seen.emplace(h, event.kind, event.pid, event.text).second) continue;
        KernelMatch match{&event, fmt::format("{}/records/{}", base, i), h};
        if (!host.runs.empty()) attribute(document, h, match);
        if (event.kind != "oom-kill" || !event.pid) {
          matches.push_back(std::move(match));
          continue;
        }
        auto& same_victim = kills_by_victim[{h, *event.pid}];
        auto earlier = std::find_if(same_victim.begin(), same_victim.end(), [&](std::size_t at) {
          const auto& kept = *matches[at].event;
          return (cut_short(kept) || cut_short(event)) && close_in_time(kept, event);
        });
        if (earlier == same_victim.end()) {
          same_victim.push_back(matches.size());
          matches.push_back(std::move(match));
        } else if (cut_short(*matches[*earlier].event) && !cut_short(event)) {
          matches[*earlier] = std::move(match);
        }
      }
    };
    for (std::size_t r = 0; r < host.runs.size(); ++r) {
      if (host.runs[r].kernel) consider(host.runs[r].kernel.value(), fmt::format("/hosts/{}/runs/{}/kernel", h, r));
    }
    if (host.kernel) consider(host.kernel.value(), fmt::format("/hosts/{}/kernel", h));
  }
  // A report cut before it named its victim (a read that ended inside it) is
  // the same kill as a whole one of the host close to it in time.
  std::vector<KernelMatch> kept;
  kept.reserve(matches.size());
  for (const auto& cut : matches) {
    const bool victimless = cut.event->kind == "oom-kill" && !cut.event->pid;
    const bool told_whole = victimless && std::any_of(matches.begin(), matches.end(), [&](const KernelMatch& whole) {
      return whole.event->kind == "oom-kill" && whole.event->pid && whole.host == cut.host &&
             close_in_time(*whole.event, *cut.event);
    });
    if (!told_whole) kept.push_back(cut);
  }
  return kept;
}

Fact<bool> kernel_log_read(const EvidenceDocument& document) {
  std::optional<Missing> why;
  for (const auto& host : document.hosts) {
    if (host.kernel) return true;
    for (const auto& run : host.runs) {
      if (run.kernel) return true;
      if (!why) why = run.kernel.missing();
    }
    if (!why) why = host.kernel.missing();
  }
  return why.value_or(Missing{MissingReason::not_present, "no kernel log was collected"});
}

}  // namespace ftdiag::facts
