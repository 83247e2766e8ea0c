// The environment snapshot `ftdiag run` keeps (environment.json), read by a
// child process started just before the job, so that reading it (the GPU
// probe, the Python installation through the user's interpreter and its
// shims: tens to hundreds of milliseconds) runs beside the job instead of on
// its exit path. The child is forked from ftdiag itself, so the helpers it
// starts are its children, never the supervisor's: the supervisor's
// waitpid(-1) cannot take them, and the job's tree never holds them.
//
// It is read once the job has started, when the job holds the least memory:
// the reader shares the job's memory cgroup for a moment then, not at its
// peak. A job that ends first waits for the rest of the reading.
#pragma once

#include <sys/types.h>

#include "base/unique_fd.h"
#include "collectors/environment.h"

namespace ftdiag::collectors {

class EnvironmentBesideJob {
 public:
  // Forks the reader, which waits for go(). Call while ftdiag runs no other
  // thread: a fork copies only the calling one. When the fork fails, take()
  // reads it in this process.
  static EnvironmentBesideJob start(EnvironmentRequest request);

  // The job runs: the reader may start its helpers. Until then it holds one
  // process and nothing else, so where processes are counted (RLIMIT_NPROC)
  // the job's own fork comes first.
  void go();

  EnvironmentBesideJob(EnvironmentBesideJob&&) noexcept;
  EnvironmentBesideJob& operator=(EnvironmentBesideJob&&) = delete;
  // Ends a reader that is still running (the job could not be started).
  ~EnvironmentBesideJob();

  // The reader while it runs, else -1: ftdiag's own child, which the
  // supervisor must leave alone.
  pid_t pid() const { return pid_; }

  // Waits for the reader's snapshot. Read here, in this process, when the
  // reader gave none (it was killed, or its output does not parse).
  evidence::EnvironmentSnapshot take();

 private:
  explicit EnvironmentBesideJob(EnvironmentRequest request) : request_(std::move(request)) {}
  void end_reader(bool kill_it);

  EnvironmentRequest request_;
  pid_t pid_ = -1;
  UniqueFd from_reader_;
  UniqueFd go_;  // closed: go (nothing is written to it)
};

}  // namespace ftdiag::collectors
