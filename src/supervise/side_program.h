// A program ftdiag runs beside the job, for itself (the environment
// snapshot: `ftdiag preflight --snapshot-to RUN/environment.json`): in a
// process group of its own, so the terminal's Ctrl-C and ftdiag's forwarded
// signals never reach it, with no terminal, and left out of the job's tree
// (process_tracker.h's exclusion). Reaped by the event loop like any child;
// at the end ftdiag waits for it a bounded time, then kills it.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::supervise {

class SideProgram {
 public:
  // Starts argv (argv[0] a path). Missing with the reason when it cannot.
  static Fact<SideProgram> start(const std::vector<std::string>& argv);

  pid_t pid() const { return pid_; }
  bool running() const { return !ended_; }
  // The event loop reaped it (waitpid(-1) saw this pid).
  void ended(int wait_status);

  // Waits until it ends or `seconds` pass, then kills its process group.
  // Empty when it ended by itself with status 0; else what happened, in words.
  std::string finish(double seconds);

 private:
  explicit SideProgram(pid_t pid) : pid_(pid) {}
  pid_t pid_ = -1;
  bool ended_ = false;
  int wait_status_ = 0;
};

}  // namespace ftdiag::supervise
