// cgroup v1 memory controller backend (Documentation/admin-guide/cgroup-v1/memory.rst).
#pragma once

#include <filesystem>
#include <string>

#include "base/fact.h"
#include "collect/host/memory_cgroup.h"

namespace ftdiag::collect {

// Reads memory.{usage_in_bytes,limit_in_bytes,max_usage_in_bytes,failcnt,
// oom_control,stat} in directory. Performs no I/O until read().
class CgroupV1Memory final : public MemoryCgroup {
 public:
  using MemoryCgroup::MemoryCgroup;

  CgroupMemoryReading read() const override;
  int version() const override { return 1; }
  void reset_peak(const Fact<bool>& sole_user) override;

 private:
  Fact<bool> peak_reset_ = Missing{MissingReason::not_present, "the peak was not reset"};
};

}  // namespace ftdiag::collect
