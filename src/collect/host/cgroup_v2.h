// cgroup v2 memory controller backend (Documentation/admin-guide/cgroup-v2.rst).
#pragma once

#include <filesystem>
#include <string>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "collect/host/memory_cgroup.h"

namespace ftdiag::collect {

// Reads memory.{current,max,peak,events,stat,swap.current} in directory.
// Performs no I/O until read() or reset_peak().
class CgroupV2Memory final : public MemoryCgroup {
 public:
  using MemoryCgroup::MemoryCgroup;

  CgroupMemoryReading read() const override;
  int version() const override { return 2; }
  // Opens memory.peak read-write and writes to it: on Linux 6.12+ the peak
  // read through that open file then counts from the write, for this reader
  // only (cgroup-v2.rst, "memory.peak"). Older kernels refuse the write (the
  // file is read-only); peak then stays the cgroup's lifetime peak.
  void reset_peak(const Fact<bool>& sole_user) override;

 private:
  Fact<std::uint64_t> read_peak() const;

  UniqueFd peak_fd_;  // memory.peak, opened and reset by reset_peak()
  Fact<bool> peak_reset_ = Missing{MissingReason::not_present, "the peak was not reset"};
};

}  // namespace ftdiag::collect
