// /proc/meminfo: machine-wide memory (proc(5), fs/proc/meminfo.c), read
// through the roots and parsed by parse/procfs/meminfo.h.
#pragma once

#include "base/fact.h"
#include "collect/system_roots.h"
#include "parse/procfs/meminfo.h"

namespace ftdiag::collect {

// Reads roots.path("/proc/meminfo").
Fact<parse::MemInfo> read_meminfo(const SystemRoots& roots);

}  // namespace ftdiag::collect
