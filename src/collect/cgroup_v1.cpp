#include "collect/cgroup_v1.h"

#include <utility>

#include "collect/cgroup_read.h"

namespace ftdiag::collect {

CgroupMemoryReading CgroupV1Memory::read() const {
  CgroupMemoryReading r;
  r.version = 1;
  r.path = cgroup_path();
  r.usage = read_cgroup_u64(directory(), "memory.usage_in_bytes");
  r.limit = read_cgroup_limit(directory(), "memory.limit_in_bytes");
  r.peak = read_cgroup_u64(directory(), "memory.max_usage_in_bytes");
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
