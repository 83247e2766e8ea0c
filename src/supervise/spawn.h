// Starts the job: fork + execve of the argv as given (no shell, so quoting
// means what it means without ftdiag).
//
// Fork safety is structural here, not luck: spawn_job refuses to fork while
// any other thread exists (a thread holding a lock at the fork would leave it
// held forever in the child), everything the child needs (argv, envp, the
// resolved path) is built before the fork, and between fork and exec the child
// only makes async-signal-safe calls.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "supervise/inherited_signals.h"

namespace ftdiag::supervise {

struct SpawnRequest {
  std::vector<std::string> argv;
  // The job's whole environment, "NAME=value" each: ftdiag's own
  // (current_environment()), plus whatever a caller adds for the job.
  // PATH is searched in it.
  std::vector<std::string> environment;
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
  // The signal mask and ignored signals the job starts with (not owned; null:
  // an empty mask and every signal at its default).
  const InheritedSignals* signals = nullptr;
};

struct SpawnFailure {
  enum class Stage {
    cannot_start,  // ftdiag could not fork (or must not: another thread exists)
    exec,          // the command could not be executed: see error_number
  };
  Stage stage;
  int error_number;  // errno of what failed; for exec ENOENT means "not found"
  std::string message;
};

// Forks and execs. Returns the child's pid once exec has succeeded, or why it
// failed (the child reports exec errors through a close-on-exec pipe). A
// command that is not found, or not executable, fails before any fork.
std::variant<pid_t, SpawnFailure> spawn_job(const SpawnRequest& request);

// This process's environment as "NAME=value" strings.
std::vector<std::string> current_environment();

}  // namespace ftdiag::supervise
