// Facts about how the job and its processes ended.
#include <algorithm>
#include <csignal>
#include <utility>
#include <vector>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "facts/extract.h"
#include "facts/node_clocks.h"
#include "facts/process_roles.h"

namespace ftdiag::facts {

namespace {

// The signal of a supervisor note "forwarded SIGTERM to the job".
std::optional<int> forwarded_signal(const std::string& note) {
  const auto start = std::string_view("forwarded ").size();
  const auto end = note.find(' ', start);
  const std::string name = note.substr(start, end == std::string::npos ? std::string::npos : end - start);
  for (int sig = 1; sig < 65; ++sig) {
    if (evidence::signal_name(sig) == name) return sig;
  }
  return std::nullopt;
}

bool is_teardown_signal(int sig) { return sig == SIGTERM || sig == SIGKILL || sig == SIGINT || sig == SIGHUP; }

void extract_job_status(const evidence::EvidenceDocument& document, const evidence::RunRef& ref, FactSet& facts) {
  const auto& run = evidence::run_at(document, ref);
  const auto pointer = ref.pointer() + "/job_status";
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
  if (run.ended) facts.set("job.duration", run.ended->time - run.started.time, ref.pointer() + "/ended/time");
}

// What a kernel record or log event says about its process.
void extract_event_incident(const Incident& incident, FactSet& facts) {
  const auto& event = *incident.event;
  const auto& p = incident.pointer;
  if (event.pid) facts.set("death.pid", std::int64_t{*event.pid}, p + "/pid");
  if (auto it = event.details.find("command"); it != event.details.end()) {
    facts.set("death.command", it->second, p + "/details/command");
  } else if (auto comm = event.details.find("comm"); comm != event.details.end()) {
    facts.set("death.command", comm->second, p + "/details/comm");  // the kernel prints only the name
  }
}

void extract_incident(const evidence::EvidenceDocument& document, const Incident& incident, FactSet& facts) {
  facts.set("death.source", std::string(to_string(incident.source)), incident.pointer);
  if (incident.inferred.empty()) {
    facts.set_missing("death.inferred", Missing{MissingReason::not_present, "the death's status was observed"});
  } else {
    facts.set("death.inferred", incident.inferred, incident.pointer);
  }
  if (incident.status.signal) {
    facts.set("death.signal", std::int64_t{*incident.status.signal}, incident.pointer);
    facts.set_missing("death.exit_code", Missing{MissingReason::not_present, "killed by a signal: no exit code"});
  } else {
    facts.set("death.exit_code", std::int64_t{incident.status.exit_code.value_or(0)}, incident.pointer);
    facts.set_missing("death.signal", Missing{MissingReason::not_present, "exited: no signal"});
  }
  facts.set("death.core_dumped", incident.status.core_dumped, incident.pointer);
  const auto* run = incident.run ? &evidence::run_at(document, *incident.run) : nullptr;
  if (run && incident.time) facts.set("death.after", *incident.time - run->started.time, incident.pointer);
  if (!incident.time) facts.set_missing("death.after", Missing{MissingReason::not_present, "the source gave no time for the death"});
  if (incident.event) {
    extract_event_incident(incident, facts);
    if (!incident.process) return;  // else the process it was attributed to tells more
  }
  if (!incident.process || !run) return;
  const auto& p = run->processes[*incident.process];
  const auto pointer = fmt::format("{}/processes/{}", incident.run->pointer(), *incident.process);
  for (const char* name : {"death.signal", "death.exit_code", "death.core_dumped"}) {
    if (facts.get(name).value) facts.set(name, facts.get(name).value.value(), pointer + "/death/status");
  }
  if (incident.time) facts.set("death.after", *incident.time - run->started.time, pointer + "/death/time");
  facts.set("death.pid", std::int64_t{p.pid}, pointer + "/pid");
  facts.set("death.command", p.argv.empty() ? p.comm : fmt::format("{}", fmt::join(p.argv, " ")), pointer + "/argv");
  facts.set("death.is_job", p.pid == run->started.job_pid, pointer + "/pid");
  const auto roles = process_roles(*run);
  const auto& role = roles[*incident.process];
  facts.set("death.role", role.role, pointer);
  facts.set("death.role_because", role.because, pointer);
  if (role.rank) {
    facts.set("death.rank", std::int64_t{*role.rank}, pointer + "/environment");
  } else {
    facts.set_missing("death.rank", Missing{MissingReason::not_present, "neither its environment nor its command line names a rank"});
  }
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
  std::int64_t by_signal = 0, by_sigkill = 0, after = 0, oom_after = 0, forwarded = 0;
  std::optional<int> first_forwarded;
  double last_after = 0;
  // Times on the common clock of the job's nodes (node_clocks.h).
  const auto clocks = NodeClocks::estimate(document);
  std::optional<double> incident_time;
  if (incident && incident->time) {
    incident_time = incident->run ? clocks.common(document, *incident->run, *incident->time) : *incident->time;
  }
  evidence::for_each_run(document, [&](const evidence::RunRef& ref, const evidence::RunEvidence& run) {
    // SIGKILLs the run's cgroup counted as OOM kills are not a teardown: the
    // incident is one of them when it is a SIGKILL in this run; the next ones
    // after it, earliest first (OOM kills come together, a launcher's
    // SIGKILL after its grace period), take the rest of the count.
    std::uint64_t oom_kills_left = oom_kills_during(run);
    if (incident && incident->run && incident->run->host == ref.host && incident->run->run == ref.run &&
        incident->status.signal == SIGKILL && oom_kills_left > 0) {
      --oom_kills_left;
    }
    std::vector<std::pair<double, int>> after_incident;  // time, signal
    for (const auto& note : run.notes) {
      if (note.what.rfind("forwarded ", 0) != 0) continue;
      ++forwarded;
      if (!first_forwarded) first_forwarded = forwarded_signal(note.what);
    }
    for (const auto& p : run.processes) {
      if (!p.death || !p.death->status || !p.death->status->signal) continue;
      const int sig = *p.death->status->signal;
      ++by_signal;
      by_sigkill += sig == SIGKILL;
      const double when = clocks.common(document, ref, p.death->time);
      if (incident_time && when > *incident_time && is_teardown_signal(sig)) after_incident.emplace_back(when, sig);
    }
    std::sort(after_incident.begin(), after_incident.end());
    for (const auto& [time, sig] : after_incident) {
      if (sig == SIGKILL && oom_kills_left > 0) {
        --oom_kills_left;
        ++oom_after;
        continue;
      }
      ++after;
      last_after = std::max(last_after, time - *incident_time);
    }
  });
  facts.set("deaths.by_signal", by_signal);
  facts.set("deaths.by_sigkill", by_sigkill);
  facts.set("deaths.forwarded_signals", forwarded);
  if (first_forwarded) facts.set("deaths.first_forwarded_signal", std::int64_t{*first_forwarded});
  else facts.set_missing("deaths.first_forwarded_signal", Missing{MissingReason::not_present, "ftdiag forwarded no signal"});
  if (incident_time) {
    facts.set("deaths.oom_killed_after_incident", oom_after);
    facts.set("deaths.after_incident", after);
    if (after > 0) facts.set("deaths.teardown_span", last_after);
  }
}

}  // namespace

void extract_job_facts(const evidence::EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto runs = evidence::count_runs(document);
  facts.set("job.runs", static_cast<std::int64_t>(runs), "/hosts");
  bool complete = runs > 0;
  evidence::for_each_run(document, [&](const evidence::RunRef&, const evidence::RunEvidence& run) {
    complete = complete && run.ended.has_value();
  });
  facts.set("job.record_complete", complete);
  if (auto focus = focus_run(document, incident)) {
    extract_job_status(document, *focus, facts);
    const auto& mechanisms = evidence::run_at(document, *focus).started.mechanisms;
    if (auto it = mechanisms.find("netlink"); it != mechanisms.end()) {
      facts.set("watch.netlink", it->second.has_value() && it->second.value(), focus->pointer() + "/started/mechanisms/netlink");
    }
  }
  const Missing no_incident{MissingReason::not_present, "no process died by a signal and the job did not fail"};
  if (incident) {
    extract_incident(document, *incident, facts);
  } else {
    for (const char* name : {"death.pid", "death.signal", "death.exit_code", "death.core_dumped", "death.after",
                             "death.command", "death.is_job", "death.witnesses", "death.rss_bytes",
                             "death.peak_rss_bytes", "death.source", "death.inferred", "deaths.after_incident", "deaths.oom_killed_after_incident", "deaths.teardown_span"}) {
      facts.set_missing(name, no_incident);
    }
  }
  count_deaths(document, incident, facts);
}

}  // namespace ftdiag::facts
