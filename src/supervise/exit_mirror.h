// Ends ftdiag the way the job ended, so shells print "Killed" or
// "Segmentation fault" and schedulers see what they would have seen.
#pragma once

#include "evidence/exit_status.h"

namespace ftdiag::supervise {

// Exits with the job's code, or dies by the job's signal with core dumps
// off (the job's core, if any, is the one that matters). As PID 1 a process
// cannot die by its own signal, so there it exits 128+N like a shell or tini.
[[noreturn]] void mirror_exit(const evidence::ExitStatus& status);

// The code a shell reports for `status`: N, or 128+signal.
int shell_exit_code(const evidence::ExitStatus& status);

}  // namespace ftdiag::supervise
