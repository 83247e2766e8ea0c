#include "supervise/signal_policy.h"

#include <array>

namespace ftdiag::supervise {

std::span<const int> supervised_signals() {
  static constexpr std::array<int, 9> kSignals = {SIGCHLD, SIGINT,  SIGQUIT, SIGTERM, SIGHUP,
                                                  SIGUSR1, SIGUSR2, SIGWINCH, SIGPIPE};
  return kSignals;
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
