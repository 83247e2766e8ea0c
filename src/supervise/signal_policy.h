// Which signals ftdiag takes over, and which of them it passes to the job.
#pragma once

#include <signal.h>

#include "supervise/inherited_signals.h"

namespace ftdiag::supervise {

// The signals ftdiag blocks and reads from a signalfd while the job runs:
// SIGCHLD, SIGWINCH, SIGPIPE, and the ones it forwards — except those
// ignored when ftdiag started. An ignored signal stays ignored, for ftdiag and
// for the job (`nohup ftdiag run -- job` survives SIGHUP like `nohup job`),
// and is never forwarded. Block them before any thread exists: a thread
// without them blocked would take them itself instead of the signalfd.
sigset_t supervised_signals(const InheritedSignals& inherited);

// True when a signal that ftdiag received must be sent on to the job.
//
// SIGTERM, SIGUSR1, SIGUSR2 (Slurm and Kubernetes send SIGTERM before
// SIGKILL), and SIGINT / SIGQUIT / SIGHUP sent with kill(1), go to the job. A
// SIGINT, SIGQUIT or SIGHUP that a terminal generated (si_code SI_KERNEL) has already reached
// the job when the job shares our process group, so forwarding it would
// deliver Ctrl-C twice. In pty mode the job has its own terminal and the key
// travels as a byte, so the same rule holds.
bool should_forward(int signal, int si_code, bool job_shares_our_terminal_group);

}  // namespace ftdiag::supervise
