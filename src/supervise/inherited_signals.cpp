#include "supervise/inherited_signals.h"

namespace ftdiag::supervise {

InheritedSignals InheritedSignals::capture() {
  InheritedSignals state;
  ::sigprocmask(SIG_SETMASK, nullptr, &state.mask);
  sigemptyset(&state.ignored);
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) sigaddset(&state.ignored, sig);
  }
  return state;
}

void InheritedSignals::restore_in_child() const {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    struct sigaction action {};
    action.sa_handler = is_ignored(sig) ? SIG_IGN : SIG_DFL;
    ::sigaction(sig, &action, nullptr);  // fails harmlessly for the C library's reserved real-time signals
  }
  ::sigprocmask(SIG_SETMASK, &mask, nullptr);
}

}  // namespace ftdiag::supervise
