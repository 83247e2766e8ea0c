// The signal state ftdiag was started with. The job must start with the same
// one, as if ftdiag were not there: `nohup ftdiag run -- job` leaves SIGHUP
// ignored for the job exactly as `nohup job` does (exec keeps SIG_IGN).
#pragma once

#include <signal.h>

namespace ftdiag::supervise {

struct InheritedSignals {
  sigset_t mask{};     // the calling thread's signal mask
  sigset_t ignored{};  // signals whose disposition was SIG_IGN

  // Reads the current state; call it before ftdiag changes any of it.
  static InheritedSignals capture();

  bool is_ignored(int signal) const { return sigismember(&ignored, signal) == 1; }

  // In a forked child before exec (async-signal-safe): every signal back to
  // SIG_IGN or SIG_DFL as inherited, then the inherited mask.
  void restore_in_child() const;
};

}  // namespace ftdiag::supervise
