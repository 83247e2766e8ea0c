#include "facts/incident.h"

#include <fmt/format.h>

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

std::optional<Incident> earliest_journal_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
  evidence::for_each_run(document, [&](const RunRef& ref, const evidence::RunEvidence& run) {
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      const auto& death = run.processes[p].death;
      if (!death || !death->status || !death->status->signal) continue;
      if (best && *best->time <= death->time) continue;
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

void consider_event(const EvidenceDocument& document, std::size_t host, IncidentSource source, const LogEvent& event,
                    std::string pointer, std::optional<Incident>& best) {
  if (!event.signal) return;
  if (best && !earlier(event.time, best->time)) return;
  best = Incident{source, first_run_of(document, host), std::nullopt, std::move(pointer), event.time,
                  evidence::ExitStatus::killed(*event.signal), &event};
}

std::optional<Incident> earliest_event_death(const EvidenceDocument& document) {
  std::optional<Incident> best;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    const auto& host = document.hosts[h];
    if (host.kernel) {
      const auto& records = host.kernel->records;
      for (std::size_t i = 0; i < records.size(); ++i) {
        consider_event(document, h, IncidentSource::kernel, records[i], fmt::format("/hosts/{}/kernel/records/{}", h, i), best);
      }
    }
    for (std::size_t f = 0; f < host.logs.size(); ++f) {
      const auto& events = host.logs[f].events;
      for (std::size_t i = 0; i < events.size(); ++i) {
        consider_event(document, h, IncidentSource::log, events[i], fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i), best);
      }
    }
  }
  return best;
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

std::optional<Incident> find_incident(const EvidenceDocument& document) {
  if (auto death = earliest_journal_death(document)) return death;
  if (auto event = earliest_event_death(document)) return event;
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
