// `ftdiag run`: starts the job, stays out of its way, and records its whole
// life and death in a run directory (journal/job_directory.h).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "collect/system_roots.h"
#include "evidence/document.h"
#include "evidence/phase_table.h"
#include "evidence/exit_status.h"
#include "journal/job_directory.h"
#include "parse/logs/line_events.h"
#include "supervise/save_forecast.h"

namespace ftdiag::supervise {

struct SupervisorOptions {
  std::vector<std::string> argv;
  std::filesystem::path job_dir;  // empty: a new folder under ./ftdiag-runs/
  double sample_interval_s = 0.5;
  // A heartbeat record, synced, this often (sources/heartbeat.h): a node
  // that vanished shows as a journal that stops without an end.
  double heartbeat_interval_s = 5;
  collect::SystemRoots roots;
  // Test and benchmark switch: pretend the process connector is unavailable,
  // so the /proc scanning fallback is exercised on machines that have it.
  bool disable_netlink = false;
  // Training-phase patterns for the live console summary (not owned; null:
  // phases stay unknown).
  const evidence::PhaseTable* phases = nullptr;
  // Launcher, scheduler and OOM-daemon lines to recognise in the console
  // (not owned; null: not recognised).
  const parse::LineEventTable* line_events = nullptr;
  // Put the probes into the job's processes (docs/probes.md): the crash
  // handler, the Python probe, PYTHONFAULTHANDLER. --no-probes: none.
  bool probes = true;
  // Sample GPU memory per device and process with the GPU probe's --watch
  // mode (docs/probes.md), at its own rate: NVML calls cost milliseconds
  // each, and GPU memory moves slower than host memory's spikes.
  bool gpu_watch = true;
  double gpu_interval_s = 2;
  // Secrets in the records are replaced by markers before journal.jsonl is
  // written (docs/redaction.md). --no-redact: written as the job had them,
  // and the run record says so.
  bool redact = true;
  // Forecasts the first checkpoint save once the job trains, and warns
  // before it when it will not fit (sources/save_watch.h). Empty: none.
  SaveForecasterFactory save_forecaster;
  // ftdiag's own children started before the job (the environment's reader,
  // collectors/environment_beside_job.h): not the job's, left to their owner
  // when they end.
  std::vector<pid_t> own_children;
  // Called once the job runs (not when it could not be started).
  std::function<void()> job_started;
};

struct SupervisedJob {
  evidence::ExitStatus status;
  std::filesystem::path run_dir;
  // The run folder held open: what is written after the job (environment.json)
  // goes into the folder the journal is in, whatever became of its path.
  std::optional<journal::RunDirectory> dir;
  evidence::RunEvidence run;  // what the journal holds, folded as it was written
};

// ftdiag's own exit codes when the job could not be supervised, after the
// conventions of env(1) and shells (cli/exit_codes.h names the same values).
inline constexpr int kExitCannotSupervise = 125;  // ftdiag's own failure: job directory, pipes, event loop, fork
inline constexpr int kExitCannotExecute = 126;    // the command was found but could not be executed
inline constexpr int kExitNotFound = 127;         // the command was not found

// Why the job could not be supervised at all, or stopped being supervisable:
// `message` names what failed and why (the system call and its errno), and
// `exit_code` is one of the above.
struct SupervisorFailure {
  int exit_code;
  std::string message;
  std::filesystem::path run_dir;  // may be empty
};

// Runs the job to its end. The terminal is restored before returning; the
// caller then renders the summary and mirrors the status.
std::variant<SupervisedJob, SupervisorFailure> supervise(const SupervisorOptions& options);

}  // namespace ftdiag::supervise
