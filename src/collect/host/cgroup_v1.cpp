#include "collect/host/cgroup_v1.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "collect/host/cgroup_read.h"

namespace ftdiag::collect {

// Writing 0 to max_usage_in_bytes sets the watermark to the current usage
// (mem_cgroup_reset: page_counter_reset_watermark).
void CgroupV1Memory::reset_peak(const Fact<bool>& sole_user) {
  if (!sole_user) {
    peak_reset_ = Missing{sole_user.missing().reason,
                          "not reset (" + sole_user.missing().detail +
                              "): max_usage_in_bytes may be an earlier job's; the peak is the highest sampled usage"};
    return;
  }
  const auto file = directory() / "memory.max_usage_in_bytes";
  int fd = ::open(file.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    peak_reset_ = missing_from_errno(errno, "reset " + file.string());
    return;
  }
  const bool written = ::write(fd, "0", 1) == 1;
  const int error = errno;
  ::close(fd);
  if (written) peak_reset_ = true;
  else peak_reset_ = missing_from_errno(error, "reset " + file.string());
}

CgroupMemoryReading CgroupV1Memory::read() const {
  CgroupMemoryReading r;
  r.version = 1;
  r.path = cgroup_path();
  r.usage = read_cgroup_u64(directory(), "memory.usage_in_bytes");
  r.limit = read_cgroup_limit(directory(), "memory.limit_in_bytes");
  r.peak = read_cgroup_u64(directory(), "memory.max_usage_in_bytes");
  r.peak_reset = peak_reset_;
  // failcnt counts every time usage hit the limit, reclaim included: the v1
  // counterpart of v2's "max" event, not a count of OOM kills.
  r.max_events = read_cgroup_u64(directory(), "memory.failcnt");
  r.oom_events = Missing{MissingReason::unsupported,
                         "cgroup v1 has no OOM event counter (under_oom is a state)"};

  auto oom_control = read_cgroup_keyed(directory(), "memory.oom_control");
  r.oom_kill = pick(oom_control, {"oom_kill"},
                    Missing{MissingReason::unsupported,
                            "memory.oom_control has no oom_kill line (needs Linux 4.13+)"});
  auto under_oom = pick(oom_control, {"under_oom"},
                        Missing{MissingReason::unparseable, "memory.oom_control lacks under_oom"});
  r.oom_group_kill = Missing{MissingReason::unsupported, "cgroup v1 has no group OOM kill"};
  r.oom_group = Missing{MissingReason::unsupported, "cgroup v1 has no memory.oom.group"};
  if (under_oom) r.under_oom = *under_oom != 0;
  else r.under_oom = under_oom.missing();

  // total_* are hierarchical (this cgroup and its children), which is what a
  // job's limit is charged against; plain keys are the fallback for cgroups
  // where use_hierarchy=0 kernels omit the totals.
  auto stat = read_cgroup_keyed(directory(), "memory.stat");
  auto absent = [](const char* key) {
    return Missing{MissingReason::not_present, std::string("memory.stat has no ") + key};
  };
  r.anon = pick(stat, {"total_rss", "rss"}, absent("rss"));
  r.file = pick(stat, {"total_cache", "cache"}, absent("cache"));
  r.shmem = pick(stat, {"total_shmem", "shmem"}, absent("shmem"));
  r.swap = pick(stat, {"total_swap", "swap"},
                      Missing{MissingReason::unsupported,
                              "memory.stat has no swap line (swap accounting is off: swapaccount=0)"});
  return r;
}

}  // namespace ftdiag::collect
