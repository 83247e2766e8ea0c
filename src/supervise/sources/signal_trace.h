// Signals generated for the job's processes and for ftdiag, with their
// senders, from the kernel's signal_generate tracepoint (signal_trace.h):
// who sent the SIGKILL, even when it was not ftdiag's parent.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

// Opened first, while ftdiag has no thread: it forks the instance's cleaner.
OpenedSource open_signal_trace(SourceSetup& setup);

}  // namespace ftdiag::supervise
