// /proc/PID/status: identity, namespaces and memory of one process.
// See proc(5) and fs/proc/array.c (proc_pid_status, task_mem).
// Read through the roots; parsed by parse/procfs/proc_status.h.
#pragma once

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_status.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/PID/status"). A vanished process is
// Missing(not_present); an unreadable one carries the errno's reason.
Fact<parse::ProcStatus> read_proc_status(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
