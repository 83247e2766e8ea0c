// Enumerating processes and a job's process tree from /proc.
#pragma once

#include <vector>

#include "base/fact.h"
#include "collect/host/proc_stat.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// The numeric entries of roots' /proc, ascending. Missing only when /proc
// itself cannot be listed.
Fact<std::vector<int>> list_pids(const SystemRoots& roots);

// Every live process whose ppid chain reaches ancestor (the ancestor itself
// excluded), breadth first, children in pid order. Reads /proc/*/stat once
// each; processes that vanish or cannot be read mid-scan are skipped
// silently, and an unreadable /proc yields {}. The snapshot is not atomic: a
// process forked during the scan may be missed.
std::vector<parse::ProcStat> find_descendants(const SystemRoots& roots, int ancestor);

}  // namespace ftdiag::collect
