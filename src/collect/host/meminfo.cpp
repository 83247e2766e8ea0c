#include "collect/host/meminfo.h"

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::MemInfo> read_meminfo(const SystemRoots& roots) {
  return read_parsed(roots.path("/proc/meminfo"), 64 * 1024, parse::parse_meminfo);
}

}  // namespace ftdiag::collect
