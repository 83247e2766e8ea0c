#include "facts/incident.h"

namespace ftdiag::facts {

std::optional<Incident> find_incident(const evidence::EvidenceDocument& document) {
  std::optional<Incident> best;
  for (std::size_t r = 0; r < document.runs.size(); ++r) {
    const auto& processes = document.runs[r].processes;
    for (std::size_t p = 0; p < processes.size(); ++p) {
      const auto& death = processes[p].death;
      if (!death || !death->status || !death->status->signal) continue;
      if (!best || death->time < best->time) best = Incident{r, p, death->time, death->status.value()};
    }
  }
  if (best) return best;
  for (std::size_t r = 0; r < document.runs.size(); ++r) {
    const auto& run = document.runs[r];
    if (!run.job_status || run.job_status->launcher_code() == 0) continue;
    Incident incident{r, std::nullopt, run.ended ? run.ended->time : run.started.time, run.job_status.value()};
    for (std::size_t p = 0; p < run.processes.size(); ++p) {
      if (run.processes[p].pid == run.started.job_pid && run.processes[p].death) {
        incident.process = p;
        incident.time = run.processes[p].death->time;
      }
    }
    return incident;
  }
  return std::nullopt;
}

}  // namespace ftdiag::facts
