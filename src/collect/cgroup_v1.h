// cgroup v1 memory controller backend (Documentation/admin-guide/cgroup-v1/memory.rst).
#pragma once

#include <filesystem>
#include <string>

#include "collect/memory_cgroup.h"

namespace ftdiag::collect {

// Reads memory.{usage_in_bytes,limit_in_bytes,max_usage_in_bytes,failcnt,
// oom_control,stat} in directory. Performs no I/O until read().
class CgroupV1Memory final : public MemoryCgroup {
 public:
  CgroupV1Memory(std::filesystem::path directory, std::string cgroup_path);

  CgroupMemoryReading read() const override;
  int version() const override { return 1; }
  const std::filesystem::path& directory() const override { return directory_; }
  const std::string& cgroup_path() const override { return cgroup_path_; }

 private:
  std::filesystem::path directory_;
  std::string cgroup_path_;
};

}  // namespace ftdiag::collect
