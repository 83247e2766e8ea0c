#include "collect/cgroup_v2.h"

#include <utility>

#include "collect/cgroup_read.h"

namespace ftdiag::collect {
namespace {

// Both files are optional features; an ENOENT there means "this kernel or
// configuration lacks it", which deserves a remedy-bearing detail.
Fact<std::uint64_t> explain_absent(Fact<std::uint64_t> value, const char* why) {
  if (value || value.missing().reason != MissingReason::not_present) return value;
  return Missing{MissingReason::not_present, value.missing().detail + " (" + why + ")"};
}

}  // namespace

CgroupMemoryReading CgroupV2Memory::read() const {
  CgroupMemoryReading r;
  r.version = 2;
  r.path = cgroup_path();
  r.usage = read_cgroup_u64(directory(), "memory.current");
  r.limit = read_cgroup_limit(directory(), "memory.max");
  r.peak = explain_absent(read_cgroup_u64(directory(), "memory.peak"),
                          "memory.peak needs Linux 5.19+");
  r.swap = explain_absent(read_cgroup_u64(directory(), "memory.swap.current"),
                                "no swap controller: CONFIG_MEMCG_SWAP off or swapaccount=0");

  // memory.events is hierarchical (includes descendants), which is what a job
  // that forks workers into child cgroups needs.
  auto events = read_cgroup_keyed(directory(), "memory.events");
  auto absent = [](const char* key, const char* why) {
    return Missing{MissingReason::unsupported,
                   std::string("memory.events has no ") + key + " line (" + why + ")"};
  };
  r.oom_events = pick(events, {"oom"}, absent("oom", "unexpected on any 4.5+ kernel"));
  r.oom_kill = pick(events, {"oom_kill"}, absent("oom_kill", "needs Linux 4.13+"));
  r.max_events = pick(events, {"max"}, absent("max", "unexpected on any 4.5+ kernel"));

  auto stat = read_cgroup_keyed(directory(), "memory.stat");
  auto no_key = [](const char* key) {
    return Missing{MissingReason::not_present, std::string("memory.stat has no ") + key};
  };
  r.anon = pick(stat, {"anon"}, no_key("anon"));
  r.file = pick(stat, {"file"}, no_key("file"));
  r.shmem = pick(stat, {"shmem"}, no_key("shmem"));
  r.under_oom = Missing{MissingReason::unsupported, "cgroup v2 has no under_oom state"};
  return r;
}

}  // namespace ftdiag::collect
