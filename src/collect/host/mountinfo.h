// /proc/PID/mountinfo: the mount table of a mount namespace (proc(5),
// fs/proc_namespace.c show_mountinfo). Used to find cgroupfs mounts.
// Read through the roots; parsed by parse/procfs/mountinfo.h.
#pragma once

#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/mountinfo.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/self/mountinfo").
Fact<std::vector<parse::MountEntry>> read_mountinfo(const SystemRoots& roots);

}  // namespace ftdiag::collect
