// Which of the kernel's records concern the job: an OOM kill or a fault is
// attributed to a process of a run by its pid (the kernel prints host pids;
// a job in a pid namespace is recorded with its pid at every level) and by
// time; never by name, which the kernel cuts to 15 bytes. Without a pid in
// common (ftdiag itself ran inside a pid namespace) an OOM kill in the run's
// own memory cgroup is attributed to the process that died at that moment.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::facts {

struct KernelMatch {
  const evidence::LogEvent* event = nullptr;  // into the document
  std::string pointer;                        // JSON pointer to the event
  std::size_t host = 0;
  std::optional<evidence::RunRef> run;        // absent: no run to attribute it to
  // Index in the run's processes; absent for an OOM kill of a process the
  // run never saw, attributed to the run by its time and cgroup.
  std::optional<std::size_t> process;
  std::string matched_by;                     // "pid", "namespace pid", "cgroup and time", "time", or empty
};

// Every kernel event of the document once (a record read live by a run and
// again post-mortem is the same record), with its attribution. Events of a
// host that has runs are attributed to a run's process or to none; events of
// a host without runs (a kernel log analyzed alone) stand on their own.
std::vector<KernelMatch> match_kernel_events(const evidence::EvidenceDocument& document);

// Whether the kernel's log over the runs' time was read, or why not.
Fact<bool> kernel_log_read(const evidence::EvidenceDocument& document);

}  // namespace ftdiag::facts
