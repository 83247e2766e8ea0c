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
  CgroupV2Memory(std::filesystem::path directory, std::string cgroup_path);

  CgroupMemoryReading read() const override;
  int version() const override { return 2; }
  const std::filesystem::path& directory() const override { return directory_; }
  const std::string& cgroup_path() const override { return cgroup_path_; }

 private:
  std::filesystem::path directory_;
  std::string cgroup_path_;
};

}  // namespace ftdiag::collect
