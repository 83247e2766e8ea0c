// The probe's handler for the five crash signals (docs/probes.md,
// "Chaining"): the first crash of the process is recorded, then the job's
// own handler runs, or the process dies exactly as it would without the probe.
#pragma once

#include <signal.h>

namespace ftdiag::crash {

void crash_handler(int signo, siginfo_t* info, void* ucontext);

}  // namespace ftdiag::crash
