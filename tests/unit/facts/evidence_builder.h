// Evidence documents written in C++ for the fact extraction tests: a run
// started at kStart, with processes, deaths, memory and console phases added
// by small helpers.
#pragma once

#include <doctest/doctest.h>

#include <csignal>
#include <cstdint>
#include <string>
#include <vector>

#include "evidence/document.h"
#include "facts/fact_set.h"

namespace ftdiag::facts::testing {

using evidence::Bytes;
using evidence::ExitStatus;

inline constexpr double kStart = 5000;  // seconds since the epoch: far from 0, to catch absolute times
inline constexpr int kJobPid = 100;

inline evidence::RunEvidence run_started() {
  evidence::RunEvidence run;
  run.directory = "rank0";
  run.started.time = kStart;
  run.started.job_pid = kJobPid;
  // What the run builder says when nothing more is recorded.
  run.job_status = Missing{MissingReason::not_present, "the journal ends before the job did"};
  const Missing no_cgroup{MissingReason::not_present, "no sample read the job's memory cgroup"};
  run.memory.cgroup_first = no_cgroup;
  run.memory.cgroup_last = no_cgroup;
  return run;
}

inline void end_run(evidence::RunEvidence& run, double at, ExitStatus status) {
  run.ended = evidence::RunEnded{kStart + at, status};
  run.job_status = status;
}

// A process seen at the start; `died_at` (seconds after kStart) with `status`
// when given.
inline evidence::ProcessEvidence& add_process(evidence::RunEvidence& run, int pid, std::vector<std::string> argv,
                                              std::optional<double> died_at = std::nullopt,
                                              std::optional<ExitStatus> status = std::nullopt) {
  evidence::ProcessEvidence p;
  p.pid = pid;
  p.ppid = pid == kJobPid ? 1 : kJobPid;
  p.comm = argv.empty() ? "?" : argv[0];
  p.argv = std::move(argv);
  p.first_seen = kStart;
  if (died_at) {
    evidence::ProcessDied death;
    death.time = kStart + *died_at;
    death.pid = pid;
    if (status) death.status = *status;
    death.witnesses = {"netlink", "waitpid"};
    p.death = death;
  }
  run.processes.push_back(std::move(p));
  return run.processes.back();
}

inline evidence::CgroupMemory cgroup(std::optional<Bytes> limit, std::uint64_t oom_kill, std::uint64_t oom_events = 0) {
  evidence::CgroupMemory c;
  c.version = 2;
  c.path = "/job.slice";
  c.usage = Bytes{0};
  c.limit = limit;
  c.oom_kill = oom_kill;
  c.oom_events = oom_events;
  return c;
}

// A timeline point `at` seconds after kStart.
inline evidence::TimelinePoint point(double at, std::optional<Bytes> cgroup_usage, std::optional<Bytes> job_rss,
                                     std::optional<Bytes> node_available = std::nullopt) {
  evidence::TimelinePoint p;
  p.time = kStart + at;
  if (cgroup_usage) p.cgroup_usage = *cgroup_usage;
  if (job_rss) p.job_rss = *job_rss;
  if (node_available) p.node_available = *node_available;
  return p;
}

inline evidence::PhaseStretch stretch(std::string phase, double first_at, std::string first_line) {
  return evidence::PhaseStretch{std::move(phase), kStart + first_at, kStart + first_at + 1, 2, std::move(first_line)};
}

// One host holding the runs.
inline evidence::EvidenceDocument document_of(std::vector<evidence::RunEvidence> runs) {
  evidence::EvidenceDocument d;
  d.generator = "ftdiag test";
  d.hosts.push_back(evidence::HostEvidence{.name = "node01", .runs = std::move(runs)});
  return d;
}

// The value of a fact that must be present with type T; fails the test
// (naming the reason it is missing) otherwise.
template <class T>
T value_of(const FactSet& facts, const std::string& name) {
  const auto& entry = facts.get(name);
  REQUIRE_MESSAGE(entry.value.has_value(), name, " is missing: ", (entry.value ? std::string() : entry.value.missing().detail));
  const auto* v = std::get_if<T>(&entry.value.value());
  REQUIRE_MESSAGE(v != nullptr, name, " has another type");
  return *v;
}

// Why a fact that must be missing is missing; fails the test when it is set.
inline std::string missing_reason(const FactSet& facts, const std::string& name) {
  const auto& entry = facts.get(name);
  REQUIRE_MESSAGE(!entry.value.has_value(), name, " is set");
  return entry.value.missing().detail;
}

}  // namespace ftdiag::facts::testing
