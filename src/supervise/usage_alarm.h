// A wake-up from the kernel when the job's memory cgroup crosses a share of
// its limit: cgroup v1's usage thresholds (memory.usage_in_bytes registered
// through cgroup.event_control with an eventfd, Documentation/admin-guide/
// cgroup-v1/memory.rst, "Memory thresholds"). A save that gathers a GiB in a
// fraction of a second crosses 95% between two samples; the threshold wakes
// the event loop at once, so the last gasp comes before the OOM kill.
// cgroup v2 has no usage thresholds: there the sampler speeds up instead.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "collect/host/memory_cgroup.h"

namespace ftdiag::supervise {

class UsageAlarm {
 public:
  // Arms one threshold per ratio of `limit` bytes on `cgroup`.
  static Fact<UsageAlarm> arm(const collect::MemoryCgroup& cgroup, std::uint64_t limit, const std::vector<double>& ratios);

  int fd() const { return event_.get(); }
  // Reads the eventfd's count (how many crossings since the last read).
  std::uint64_t drain();
  const std::string& cgroup_path() const { return cgroup_path_; }
  std::uint64_t limit() const { return limit_; }

 private:
  UsageAlarm(UniqueFd event, UniqueFd usage, std::string cgroup_path, std::uint64_t limit)
      : event_(std::move(event)), usage_(std::move(usage)), cgroup_path_(std::move(cgroup_path)), limit_(limit) {}
  UniqueFd event_;
  UniqueFd usage_;  // held open: the registration lives as long as both files
  std::string cgroup_path_;
  std::uint64_t limit_ = 0;
};

}  // namespace ftdiag::supervise
