// The last gasp: a SIGKILL from the OOM killer cannot be caught, so the
// moment to look at what was allocating is just before it. When the job's
// memory nears its limit (the cgroup's, or the node's), this records the
// largest processes and the memory map summary of the largest, and asks the
// largest Python processes of the job for their stacks through the Python
// probe's stack signal (docs/probes.md). The dumps are read on the next
// ticks; when the -9 follows, the evidence holds the code that was running.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "collect/system_roots.h"
#include "evidence/records.h"

namespace ftdiag::supervise {

struct MemoryPressure {
  double ratio = 0;    // used / limit, 0..1+
  std::string reason;  // "the memory cgroup at 96% of its limit"
};

// The higher of the cgroup's usage against its limit and the node's used
// share of its RAM; nullopt when the sample has neither.
std::optional<MemoryPressure> memory_pressure(const evidence::MemorySample& sample);

class LastGasp {
 public:
  static constexpr double kThreshold = 0.95;     // ask at this pressure
  static constexpr double kNearThreshold = 0.75; // sample faster from here (and, v1, be woken here)
  static constexpr double kFastInterval = 0.1;   // seconds between samples when near
  static constexpr std::size_t kLargest = 3;     // processes recorded and asked
  static constexpr std::size_t kMaxGasps = 20;   // per run

  // `run_dir_fd`: the run folder's open descriptor, not owned (the
  // supervision holds it for longer than this).
  LastGasp(int run_dir_fd, collect::SystemRoots roots) : run_dir_fd_(run_dir_fd), roots_(std::move(roots)) {}

  // The sampling interval for the next tick, given the configured one.
  double interval(double configured) const;

  // Called with each sample; a record when it is time to gasp (pressure at
  // the threshold, first time or risen by 2 points or 30 s later).
  std::optional<evidence::LastGasp> consider(const evidence::MemorySample& sample, const std::vector<int>& live_pids,
                                             double now);

  // The dumps the asked processes have written since; call each tick, and
  // with `final` at the end (whatever was written by then).
  std::vector<evidence::PythonStacksTaken> collect_stacks(double now, bool final = false);

  bool waiting() const { return !pending_.empty(); }

 private:
  struct Pending {
    int pid = 0;
    std::uintmax_t offset = 0;       // the stacks file's size when asked
    std::uintmax_t seen_size = 0;    // its size at the last look
    double asked_at = 0;
  };
  bool ask_for_stacks(int pid, double now);

  int run_dir_fd_;
  collect::SystemRoots roots_;
  double last_pressure_ = 0;
  std::optional<double> last_gasp_at_;
  double last_gasp_pressure_ = 0;
  std::size_t gasps_ = 0;
  std::vector<Pending> pending_;
};

// The stack signal a process's Python probe registered ("stack-signal N" in
// python-probe.<pid>.txt, the last block: an exec'd Python appends its own),
// when the process still catches it (SigCgt in /proc/PID/status): a process
// that exec'd a program without the probe would be killed by it.
std::optional<int> stack_signal_of(int run_dir_fd, const collect::SystemRoots& roots, int pid);

}  // namespace ftdiag::supervise
