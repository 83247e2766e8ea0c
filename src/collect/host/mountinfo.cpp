#include "collect/host/mountinfo.h"

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<std::vector<parse::MountEntry>> read_mountinfo(const SystemRoots& roots) {
  // Hosts with thousands of container mounts produce megabytes here.
  return read_parsed(roots.path("/proc/self/mountinfo"), 16 * 1024 * 1024, parse::parse_mountinfo);
}

}  // namespace ftdiag::collect
