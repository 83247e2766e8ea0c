// The signals ftdiag itself receives, through a signalfd: SIGCHLD (a child
// ended), SIGWINCH (the terminal's size), and every other supervised signal,
// recorded with its sender and passed on to the job (signal_policy.h).
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

// Required: without it no exit of the job would be seen.
OpenedSource open_received_signals(SourceSetup& setup);

}  // namespace ftdiag::supervise
