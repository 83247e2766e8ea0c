// /proc/PID/cgroup: which cgroup a process is in, per hierarchy
// (cgroups(7); kernel/cgroup/cgroup.c proc_cgroup_show).
// Read through the roots; parsed by parse/procfs/proc_cgroup.h.
#pragma once

#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_cgroup.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/PID/cgroup").
Fact<std::vector<parse::CgroupMembership>> read_proc_cgroup(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
