// The incident: the death that started the end of the job. Everything else
// (the launcher tearing down the other ranks, NCCL timeouts on survivors) is
// judged relative to it.
#pragma once

#include <optional>

#include "evidence/document.h"

namespace ftdiag::facts {

struct Incident {
  std::size_t run = 0;                  // index into document.runs
  std::optional<std::size_t> process;   // index into that run's processes; none: only the job status is known
  double time = 0;                      // when it happened (seconds since the epoch)
  evidence::ExitStatus status;
};

// The earliest death by a signal anywhere in the job's tree; failing that,
// the first run whose job exited non-zero. A child that merely exited
// non-zero (a shell's `which`, a failed probe) is not an incident: what ends
// a job abruptly is a signal, and a clean failure shows in the job's code.
// None when every run ended well or nothing is known.
std::optional<Incident> find_incident(const evidence::EvidenceDocument& document);

}  // namespace ftdiag::facts
