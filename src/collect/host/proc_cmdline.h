// /proc/PID/cmdline: the argument vector, NUL separated (proc(5)).
// Read through the roots; parsed by parse/procfs/proc_cmdline.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/proc_cmdline.h"

namespace ftdiag::collect {

// The reader stops here: a training command line is rarely longer, and an
// argv of megabytes (a process that rewrote its own) must not bloat evidence.
inline constexpr std::size_t kMaxCmdlineBytes = 64 * 1024;

// Reads at most kMaxCmdlineBytes of roots.path("/proc/PID/cmdline").
Fact<std::vector<std::string>> read_proc_cmdline(const SystemRoots& roots, int pid);

}  // namespace ftdiag::collect
