#include "supervise/signal_policy.h"

#include <initializer_list>

namespace ftdiag::supervise {

sigset_t supervised_signals(const InheritedSignals& inherited) {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGCHLD, SIGWINCH, SIGPIPE}) sigaddset(&set, sig);
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2}) {
    // Blocked, an ignored signal would be queued (the kernel discards only
    // unblocked ignored signals) and read from the signalfd.
    if (!inherited.is_ignored(sig)) sigaddset(&set, sig);
  }
  return set;
}

bool should_forward(int signal, int si_code, bool job_shares_our_terminal_group) {
  switch (signal) {
    case SIGTERM:
    case SIGUSR1:
    case SIGUSR2: return true;
    case SIGINT:
    case SIGQUIT:
    case SIGHUP: return !(si_code == SI_KERNEL && job_shares_our_terminal_group);
    default: return false;
  }
}

}  // namespace ftdiag::supervise
