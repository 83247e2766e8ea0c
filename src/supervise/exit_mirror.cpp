#include "supervise/exit_mirror.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ftdiag::supervise {

int shell_exit_code(const evidence::ExitStatus& status) {
  if (status.signal) return 128 + *status.signal;
  return status.exit_code.value_or(0);
}

[[noreturn]] void mirror_exit(const evidence::ExitStatus& status) {
  std::fflush(nullptr);
  if (!status.signal || ::getpid() == 1) std::_Exit(shell_exit_code(status));
  const int sig = *status.signal;
  rlimit no_core{0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::prctl(PR_SET_DUMPABLE, 0);
  struct sigaction deflt {};
  deflt.sa_handler = SIG_DFL;
  ::sigaction(sig, &deflt, nullptr);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
  ::kill(::getpid(), sig);
  // Signals whose default is to ignore or stop (SIGCHLD, SIGTSTP) leave us
  // here; so does a signal blocked by a debugger. Fall back to the shell code.
  std::_Exit(shell_exit_code(status));
}

}  // namespace ftdiag::supervise
