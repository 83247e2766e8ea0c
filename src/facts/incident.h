// The incident: the death that started the end of the job. Everything else
// (the launcher tearing down the other ranks, NCCL timeouts on survivors) is
// judged relative to it.
//
// It can be decided by any source: a death recorded in a journal (with its
// wait status), a kernel record (an OOM kill names its victim and signal),
// or a log event (a launcher's "exits with return code = -9"). The fact
// death.source says which.
#pragma once

#include <optional>
#include <string>

#include "evidence/document.h"

namespace ftdiag::facts {

enum class IncidentSource { journal, kernel, log };
std::string_view to_string(IncidentSource source);

struct Incident {
  IncidentSource source = IncidentSource::journal;
  // The run it is judged in: the run of a journal death; for a kernel record
  // or log event, the host's first run when the job was watched by ftdiag.
  std::optional<evidence::RunRef> run;
  std::optional<std::size_t> process;  // index into that run's processes (journal deaths)
  std::string pointer;                 // JSON pointer to the deciding record
  std::optional<double> time;          // unknown for a log line without a timestamp
  evidence::ExitStatus status;
  // The kernel record or log event that decided it (not owned: points into
  // the document the incident was found in).
  const evidence::LogEvent* event = nullptr;
  // How the status was inferred when no source observed it (a process that
  // vanished while its cgroup counted an OOM kill); empty when observed.
  std::string inferred;
  // Why this kernel record, of several in a log read on its own, is the job's
  // death ("its time, 1 s before the death the log reports"); empty when it
  // was the only one or was tied to a run's process.
  std::string chosen_because;
};

// None when every run's job succeeded (exit 0), whatever died inside it.
// Otherwise the earliest death by a signal in the tree of a run whose job
// did not succeed; failing that, the earliest kernel record or log event that
// reports a process killed by a signal (time-stamped ones by time, the others
// in file order after them); failing that, a process that vanished without a
// status while its run's cgroup counted OOM kills (inferred: SIGKILL), or,
// when none vanished in sight, an unseen process of that failed run;
// failing that, the first run whose job exited non-zero. A child that merely
// exited non-zero (a shell's `which`) is not an incident: what ends a job
// abruptly is a signal, and a clean failure shows in the job's code.
std::optional<Incident> find_incident(const evidence::EvidenceDocument& document);

// OOM kills the run's memory cgroup counted while the run watched it (0 when
// the counter is not known).
std::uint64_t oom_kills_during(const evidence::RunEvidence& run);

// The run an extraction looks at: the incident's, else the first one.
std::optional<evidence::RunRef> focus_run(const evidence::EvidenceDocument& document,
                                          const std::optional<Incident>& incident);

}  // namespace ftdiag::facts
