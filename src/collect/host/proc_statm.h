// /proc/PID/statm: memory sizes in pages (proc(5)); cheaper than status when
// only the resident size is needed.
// Read through the roots; parsed by parse/procfs/proc_statm.h.
#pragma once

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_statm.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/PID/statm") and converts with this machine's page
// size (sysconf(_SC_PAGESIZE)).
Fact<parse::ProcStatm> read_proc_statm(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
