// cgroup v2 memory controller backend (Documentation/admin-guide/cgroup-v2.rst).
#pragma once

#include <filesystem>
#include <string>

#include "collect/memory_cgroup.h"

namespace ftdiag::collect {

// Reads memory.{current,max,peak,events,stat,swap.current} in directory.
// Performs no I/O until read().
class CgroupV2Memory final : public MemoryCgroup {
 public:
  using MemoryCgroup::MemoryCgroup;

  CgroupMemoryReading read() const override;
  int version() const override { return 2; }
};

}  // namespace ftdiag::collect
