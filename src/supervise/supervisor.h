// `ftdiag run`: starts the job, stays out of its way, and records its whole
// life and death in a run directory (evidence/job_directory.h).
#pragma once

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

#include "collect/system_roots.h"
#include "evidence/document.h"
#include "evidence/phase_table.h"
#include "evidence/exit_status.h"

namespace ftdiag::supervise {

struct SupervisorOptions {
  std::vector<std::string> argv;
  std::filesystem::path job_dir;  // empty: a new folder under ./ftdiag-runs/
  double sample_interval_s = 0.5;
  collect::SystemRoots roots;
  // Test and benchmark switch: pretend the process connector is unavailable,
  // so the /proc scanning fallback is exercised on machines that have it.
  bool disable_netlink = false;
  // Training-phase patterns for the live console summary (not owned; null:
  // phases stay unknown).
  const evidence::PhaseTable* phases = nullptr;
};

struct SupervisedJob {
  evidence::ExitStatus status;
  std::filesystem::path run_dir;
  evidence::RunEvidence run;  // what the journal holds, folded as it was written
};

// Why the job could not be supervised at all. `exit_code` follows the
// conventions of env(1) and shells: 125 ftdiag's own failure (no job
// directory), 126 found but not executable, 127 not found.
struct SupervisorFailure {
  int exit_code;
  std::string message;
  std::filesystem::path run_dir;  // may be empty
};

// Runs the job to its end. The terminal is restored before returning; the
// caller then renders the summary and mirrors the status.
std::variant<SupervisedJob, SupervisorFailure> supervise(const SupervisorOptions& options);

}  // namespace ftdiag::supervise
