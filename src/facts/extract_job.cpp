// Facts about how the job and its processes ended.
#include <csignal>

#include <fmt/format.h>

#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

std::string run_pointer(std::size_t run) { return fmt::format("/runs/{}", run); }

bool is_teardown_signal(int sig) { return sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP; }

void extract_job_status(const evidence::EvidenceDocument& document, std::size_t run_index, FactSet& facts) {
  const auto& run = document.runs[run_index];
  const auto pointer = run_pointer(run_index) + "/job_status";
  if (!run.job_status) {
    for (const char* name : {"job.exit_code", "job.signal", "job.launcher_code", "job.failed"}) {
      facts.set_missing(name, run.job_status.missing());
    }
    return;
  }
  const auto& status = run.job_status.value();
  if (status.exit_code) facts.set("job.exit_code", std::int64_t{*status.exit_code}, pointer + "/exit_code");
  if (status.signal) facts.set("job.signal", std::int64_t{*status.signal}, pointer + "/signal");
  facts.set("job.launcher_code", std::int64_t{status.launcher_code()}, pointer + "/launcher_code");
  facts.set("job.failed", status.launcher_code() != 0, pointer);
  if (run.ended) facts.set("job.duration", run.ended->time - run.started.time, run_pointer(run_index) + "/ended/time");
}

void extract_incident(const evidence::EvidenceDocument& document, const Incident& incident, FactSet& facts) {
  const auto& run = document.runs[incident.run];
  if (incident.status.signal) {
    facts.set("death.signal", std::int64_t{*incident.status.signal});
    facts.set_missing("death.exit_code", Missing{MissingReason::not_present, "killed by a signal: no exit code"});
  } else {
    facts.set("death.exit_code", std::int64_t{incident.status.exit_code.value_or(0)});
    facts.set_missing("death.signal", Missing{MissingReason::not_present, "exited: no signal"});
  }
  facts.set("death.core_dumped", incident.status.core_dumped);
  facts.set("death.after", incident.time - run.started.time);
  if (!incident.process) return;
  const auto& p = run.processes[*incident.process];
  const auto pointer = fmt::format("{}/processes/{}", run_pointer(incident.run), *incident.process);
  for (const char* name : {"death.signal", "death.exit_code", "death.core_dumped"}) {
    if (facts.get(name).value) facts.set(name, facts.get(name).value.value(), pointer + "/death/status");
  }
  facts.set("death.after", incident.time - run.started.time, pointer + "/death/time");
  facts.set("death.pid", std::int64_t{p.pid}, pointer + "/pid");
  facts.set("death.command", p.argv.empty() ? p.comm : fmt::format("{}", fmt::join(p.argv, " ")), pointer + "/argv");
  facts.set("death.is_job", p.pid == run.started.job_pid, pointer + "/pid");
  if (p.death) facts.set("death.witnesses", fmt::format("{}", fmt::join(p.death->witnesses, ",")), pointer + "/death/witnesses");
  if (p.last_sample && p.last_sample->rss) {
    facts.set("death.rss_bytes", static_cast<std::int64_t>(p.last_sample->rss.value()), pointer + "/last_sample/rss_bytes");
  }
  if (p.vm_hwm || p.peak_rss) {
    const auto peak = std::max(p.vm_hwm.value_or(0), p.peak_rss.value_or(0));
    facts.set("death.peak_rss_bytes", static_cast<std::int64_t>(peak), pointer + (p.vm_hwm ? "/vm_hwm_bytes" : "/peak_rss_bytes"));
  }
}

void count_deaths(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  std::int64_t by_signal = 0, by_sigkill = 0, after = 0, forwarded = 0;
  double last_after = 0;
  for (const auto& run : document.runs) {
    for (const auto& note : run.notes) forwarded += note.what.rfind("forwarded ", 0) == 0;
    for (const auto& p : run.processes) {
      if (!p.death || !p.death->status || !p.death->status->signal) continue;
      const int sig = *p.death->status->signal;
      ++by_signal;
      by_sigkill += sig == SIGKILL;
      if (incident && p.death->time > incident->time && is_teardown_signal(sig)) {
        ++after;
        last_after = std::max(last_after, p.death->time - incident->time);
      }
    }
  }
  facts.set("deaths.by_signal", by_signal);
  facts.set("deaths.by_sigkill", by_sigkill);
  facts.set("deaths.forwarded_signals", forwarded);
  if (incident) {
    facts.set("deaths.after_incident", after);
    if (after > 0) facts.set("deaths.teardown_span", last_after);
  }
}

}  // namespace

void extract_job_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  facts.set("job.runs", static_cast<std::int64_t>(document.runs.size()), "/runs");
  bool complete = !document.runs.empty();
  for (const auto& run : document.runs) complete = complete && run.ended.has_value();
  facts.set("job.record_complete", complete);
  if (!document.runs.empty()) {
    extract_job_status(document, incident ? incident->run : 0, facts);
    const auto& mechanisms = document.runs[0].started.mechanisms;
    if (auto it = mechanisms.find("netlink"); it != mechanisms.end()) {
      facts.set("watch.netlink", it->second.has_value() && it->second.value(), "/runs/0/started/mechanisms/netlink");
    }
  }
  const Missing no_incident{MissingReason::not_present, "no process died by a signal and the job did not fail"};
  if (incident) {
    extract_incident(document, *incident, facts);
  } else {
    for (const char* name : {"death.pid", "death.signal", "death.exit_code", "death.core_dumped", "death.after",
                             "death.command", "death.is_job", "death.witnesses", "death.rss_bytes",
                             "death.peak_rss_bytes", "deaths.after_incident", "deaths.teardown_span"}) {
      facts.set_missing(name, no_incident);
    }
  }
  count_deaths(document, incident, facts);
}

}  // namespace ftdiag::facts
