#include "collect/host/proc_stat.h"

#include <fmt/format.h>

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::ProcStat> read_proc_stat(const SystemRoots& roots, int pid) {
  return read_parsed(roots.path(fmt::format("/proc/{}/stat", pid)), 4096, parse::parse_proc_stat);
}

}  // namespace ftdiag::collect
