#include "collect/host/proc_status.h"

#include <fmt/format.h>

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::ProcStatus> read_proc_status(const SystemRoots& roots, int pid) {
  return read_parsed(roots.path(fmt::format("/proc/{}/status", pid)), 64 * 1024,
                     parse::parse_proc_status);
}

}  // namespace ftdiag::collect
