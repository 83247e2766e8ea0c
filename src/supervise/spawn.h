// Starts the job: fork + execvp of the argv as given (no shell, so quoting
// means what it means without ftdiag).
#pragma once

#include <sys/types.h>

#include <optional>
#include <variant>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::supervise {

struct SpawnRequest {
  std::vector<std::string> argv;
  // When set, the job gets this pty slave as its controlling terminal and as
  // stdout and stderr (stdin too when `slave_is_stdin`), in a new session.
  std::optional<int> pty_slave;
  bool slave_is_stdin = false;
  // Pipes for stdout / stderr when there is no pty.
  std::optional<int> stdout_fd;
  std::optional<int> stderr_fd;
  // What to write back to /proc/self/oom_score_adj before exec: the value
  // ftdiag had before it lowered its own, so the job is judged as without us.
  std::optional<std::string> oom_score_adj;
};

struct SpawnFailure {
  int error_number;  // errno of execvp (ENOENT: 127, otherwise 126)
  std::string message;
};

// Forks and execs. Returns the child's pid once exec has succeeded, or why it
// failed (the child reports exec errors through a close-on-exec pipe).
// Signals blocked in the caller are unblocked and reset in the child.
std::variant<pid_t, SpawnFailure> spawn_job(const SpawnRequest& request);

}  // namespace ftdiag::supervise
