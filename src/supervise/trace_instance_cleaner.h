// A tracefs instance outlives the process that made it: the kernel keeps it,
// its buffers and its enabled events until someone removes the directory.
// So the owner removes it when done, and a small process forked at open
// removes it when the owner cannot (killed by SIGKILL, crashed):
//
//   owner --socketpair (O_CLOEXEC: never the job's)--> cleaner
//     owner done: one byte, "removed it myself" -> the cleaner exits
//     owner gone: end of file                   -> the cleaner removes it
//
// The cleaner keeps no other descriptor (the job's output relays wait for
// every copy of a pipe's write end to close), ignores the signals a terminal
// or a scheduler sends to the group, and leaves ftdiag's process group, so
// that a kill of the group leaves it to clean up. A SIGKILL to every process
// of a cgroup kills it too; the next open removes what is left
// (remove_stale_instances).
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>

#include "base/unique_fd.h"

namespace ftdiag::supervise {

// What to undo for an instance, in fixed buffers: the cleaner, a forked
// child, can only use what was prepared before the fork.
struct TraceInstanceUndo {
  char event_enable[512] = {};  // the event's "enable" file in the instance
  char instance[512] = {};      // the instance directory
  char mount_point[512] = {};   // tracefs, when it was mounted for this instance; empty otherwise
};

// nullopt when a path does not fit its buffer.
std::optional<TraceInstanceUndo> make_trace_instance_undo(const std::string& event_enable,
                                                          const std::string& instance,
                                                          const std::string& mount_point);

// Disables the event, removes the instance, then unmounts tracefs when it was
// mounted for it. Only system calls: safe in a forked child. While the
// instance is busy (its trace_pipe is still being closed by an owner that is
// exiting) it retries for up to busy_wait_ms. True when the instance is gone.
bool undo_trace_instance(const TraceInstanceUndo& undo, int busy_wait_ms) noexcept;

class TraceInstanceCleaner {
 public:
  // Forks the cleaner. The child runs system calls only, so this is safe
  // even where threads exist (fork_safety.h). nullopt with errno when
  // socketpair or fork fails.
  static std::optional<TraceInstanceCleaner> start(const TraceInstanceUndo& undo);

  TraceInstanceCleaner(TraceInstanceCleaner&& other) noexcept
      : owner_end_(std::move(other.owner_end_)), pid_(std::exchange(other.pid_, -1)) {}
  TraceInstanceCleaner& operator=(TraceInstanceCleaner&& other) noexcept {
    owner_end_ = std::move(other.owner_end_);
    pid_ = std::exchange(other.pid_, -1);
    return *this;
  }
  // Without dismiss(): closing the owner's end makes the cleaner undo the
  // instance (not waited for).
  ~TraceInstanceCleaner() = default;

  // The owner has undone the instance itself: tells the cleaner to exit
  // without acting, and reaps it (it exits at once; ECHILD when an event
  // loop's waitpid(-1) reaped it first).
  void dismiss();

  // The cleaner is a child of the owner, not part of the job; -1 once
  // dismissed or moved from.
  pid_t pid() const { return pid_; }

 private:
  TraceInstanceCleaner(UniqueFd owner_end, pid_t pid) : owner_end_(std::move(owner_end)), pid_(pid) {}

  UniqueFd owner_end_;
  pid_t pid_ = -1;
};

}  // namespace ftdiag::supervise
