// A program ftdiag runs beside the job, for itself (the GPU probe's --watch):
// in a process group of its own, so the terminal's Ctrl-C and ftdiag's
// forwarded signals never reach it, with no terminal, and left out of the
// job's tree (process_tracker.h's exclusion, which covers what it starts).
// Reaped by the event loop like any child; stopped when the job has ended.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag::supervise {

class SideProgram {
 public:
  // Starts argv (argv[0] a path). Missing with the reason when it cannot.
  // With `capture_output`, its stdout is a non-blocking pipe (output()).
  static Fact<SideProgram> start(const std::vector<std::string>& argv, bool capture_output = false);

  pid_t pid() const { return pid_; }
  int output() const { return output_.get(); }
  void close_output() { output_.reset(); }
  // Ends it now (its process group), then waits for it.
  void stop();
  bool running() const { return !ended_; }
  // The event loop reaped it (waitpid(-1) saw this pid).
  void ended(int wait_status);

 private:
  SideProgram(pid_t pid, UniqueFd output) : pid_(pid), output_(std::move(output)) {}
  pid_t pid_ = -1;
  UniqueFd output_;
  bool ended_ = false;
  int wait_status_ = 0;
};

}  // namespace ftdiag::supervise
