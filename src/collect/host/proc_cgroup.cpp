#include "collect/host/proc_cgroup.h"

#include <fmt/format.h>

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<std::vector<parse::CgroupMembership>> read_proc_cgroup(const SystemRoots& roots, int pid) {
  return read_parsed(roots.path(fmt::format("/proc/{}/cgroup", pid)), 64 * 1024,
                     parse::parse_proc_cgroup);
}

}  // namespace ftdiag::collect
