// The evidence document: everything gathered about one job, the contract
// between collectors and rules (docs/evidence.md). It reads back what it
// writes (document_json.h), so saved evidence can be judged again later.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "evidence/console_log.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

// Bumped on any incompatible change of the JSON form.
inline constexpr int kSchemaVersion = 1;

struct ProcessEvidence {
  int pid = 0;
  int ppid = 0;
  std::vector<int> nspid;
  std::vector<std::string> argv;
  std::string comm;
  std::string seen_by;
  double first_seen = 0;
  std::optional<ProcessDied> death;      // absent: still running when the record ends
  // Missing when no sample caught the process alive (it lived less than a tick).
  Fact<Bytes> peak_rss = Missing{MissingReason::not_present, "no memory sample of this process"};  // highest sampled RSS
  Fact<Bytes> vm_hwm = Missing{MissingReason::not_present, "no memory sample of this process"};    // the kernel's high-water mark, last seen
  Fact<ProcessMemory> last_sample = Missing{MissingReason::not_present, "no memory sample of this process"};

  bool operator==(const ProcessEvidence&) const = default;
};

// Extremes over the whole run, each with the time it was reached.
struct MemoryWatermarks {
  Fact<Bytes> node_mem_total = Missing{};
  Fact<Bytes> node_min_available = Missing{};
  std::optional<double> node_min_available_time;
  Fact<Bytes> job_rss_peak = Missing{MissingReason::not_present, "no live process with a memory reading"};  // sum over the tree's processes, per sample
  std::optional<double> job_rss_peak_time;
  Fact<CgroupMemory> cgroup_first = Missing{};  // the first reading: counters before the job ran
  Fact<CgroupMemory> cgroup_last = Missing{};   // the last reading (the cgroup may vanish)
  Fact<Bytes> cgroup_peak = Missing{};         // kernel's peak, or the highest sampled usage
  Fact<Bytes> dev_shm_peak_used = Missing{};
  Fact<Bytes> dev_shm_total = Missing{};

  bool operator==(const MemoryWatermarks&) const = default;
};

struct TimelinePoint {
  double time = 0;
  Fact<Bytes> node_available = Missing{};
  Fact<Bytes> cgroup_usage = Missing{};
  Fact<Bytes> job_rss = Missing{MissingReason::not_present, "no live process with a memory reading"};
  Fact<Bytes> dev_shm_used = Missing{};
  std::uint64_t process_count = 0;

  bool operator==(const TimelinePoint&) const = default;
};

// A stretch of consecutive console lines that mark the same training phase
// (rules/phases.json): "checkpoint-save" from the first "Saving model
// checkpoint" line until a line of another phase.
struct PhaseStretch {
  std::string phase;
  double first_time = 0;
  double last_time = 0;
  std::uint64_t lines = 0;
  std::string first_line;

  bool operator==(const PhaseStretch&) const = default;
};

struct ConsoleEvidence {
  std::uint64_t line_count = 0;
  std::vector<PhaseStretch> phases;  // oldest first; at most the last 1000 stretches
  std::vector<ConsoleLine> tail;  // the last lines, oldest first
  Fact<bool> readable = true;     // Missing when console.log could not be read

  bool operator==(const ConsoleEvidence&) const = default;
};

struct RunEvidence {
  std::string directory;
  RunStarted started;
  std::optional<RunEnded> ended;  // absent when ftdiag itself was killed
  Fact<ExitStatus> job_status = Missing{};
  std::vector<ProcessEvidence> processes;
  MemoryWatermarks memory;
  std::vector<TimelinePoint> timeline;
  ConsoleEvidence console;
  std::vector<SupervisorNote> notes;
  std::vector<std::string> journal_problems;  // lines that could not be read, and why

  bool operator==(const RunEvidence&) const = default;
};

struct EvidenceDocument {
  int schema_version = kSchemaVersion;
  std::string generator;  // "ftdiag 0.1.0"
  std::string source;     // the path that was analyzed
  std::vector<RunEvidence> runs;

  bool operator==(const EvidenceDocument&) const = default;
};

}  // namespace ftdiag::evidence
