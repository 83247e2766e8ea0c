// /proc/PID/stat: the one-line process record (proc(5), fs/proc/array.c
// do_task_stat). Used to walk the process tree and to tell a reused pid apart
// by its start time.
// Read through the roots; parsed by parse/procfs/proc_stat.h.
#pragma once

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_stat.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/PID/stat"); a vanished process is Missing(not_present).
Fact<parse::ProcStat> read_proc_stat(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
