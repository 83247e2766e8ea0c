#include "evidence/exit_status.h"

#include <sys/wait.h>

#include <csignal>
#include <cstring>

#include <fmt/format.h>

namespace ftdiag::evidence {

ExitStatus ExitStatus::from_wait_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) return killed(WTERMSIG(wait_status), WCOREDUMP(wait_status) != 0);
  return exited(WEXITSTATUS(wait_status));
}

std::string ExitStatus::describe() const {
  if (signal) {
    return fmt::format("killed by {}{}", signal_name(*signal), core_dumped ? " (core dumped)" : "");
  }
  return fmt::format("exit {}", exit_code.value_or(0));
}

std::string signal_name(int signal) {
  // sigabbrev_np is glibc >= 2.32 and async-signal-safe; it returns null for
  // real-time and unknown numbers.
  if (const char* abbrev = sigabbrev_np(signal)) return fmt::format("SIG{}", abbrev);
  return fmt::format("SIG{}", signal);
}

}  // namespace ftdiag::evidence
