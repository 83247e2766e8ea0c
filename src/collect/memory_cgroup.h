// The memory controller of one cgroup, v1 or v2 behind one interface.
//
// The backends live in their own files (cgroup_v1.cpp, cgroup_v2.cpp); finding
// the right one for a process is cgroup_locate.cpp. Both backends fill the
// same CgroupMemoryReading; a counter one version does not have is a Missing
// with reason unsupported, never a zero.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "base/fact.h"

namespace ftdiag::collect {

struct CgroupMemoryReading {
  int version = 0;   // 1 or 2
  std::string path;  // cgroup path as in /proc/PID/cgroup
  Fact<std::uint64_t> usage = Missing{};                 // bytes: v1 usage_in_bytes, v2 memory.current
  Fact<std::optional<std::uint64_t>> limit = Missing{};  // bytes; nullopt = unlimited
  // High-water mark, bytes: v1 max_usage_in_bytes, v2 memory.peak (5.19+;
  // Missing not_present on older kernels).
  Fact<std::uint64_t> peak = Missing{};
  // v2 memory.events "oom" (times the limit was hit and an allocation was about
  // to fail). v1 has no such counter: Missing unsupported.
  Fact<std::uint64_t> oom_events = Missing{};
  // Processes killed by any OOM killer: v2 events "oom_kill"; v1 oom_control
  // "oom_kill" (4.13+, Missing unsupported before).
  Fact<std::uint64_t> oom_kill = Missing{};
  // Times usage hit the limit: v2 events "max"; v1 memory.failcnt.
  Fact<std::uint64_t> max_events = Missing{};
  // Bytes of swap charged: v2 memory.swap.current; v1 memory.stat
  // total_swap/swap (present only with swap accounting).
  Fact<std::uint64_t> swap_usage = Missing{};
  // From memory.stat, bytes: v2 anon/file/shmem; v1 total_rss|rss,
  // total_cache|cache, total_shmem|shmem (hierarchical totals preferred).
  Fact<std::uint64_t> anon = Missing{};
  Fact<std::uint64_t> file = Missing{};
  Fact<std::uint64_t> shmem = Missing{};
  // v1 oom_control "under_oom": tasks are frozen waiting for memory
  // (oom_kill_disable 1). v2 has no equivalent: Missing unsupported.
  Fact<bool> under_oom = Missing{};
};

// One cgroup directory's memory files. read() is meant to be called every
// 0.5 s, so each backend reads only the files the reading needs (about six
// small files) and nothing else. read() never throws (except bad_alloc);
// files that vanish because the cgroup was removed show up as Missing
// not_present in each field. Implementations are immutable and thread-safe.
// A located memory cgroup. Backends (cgroup_v1.h, cgroup_v2.h) differ only
// in which files they read; where the cgroup is lives here.
class MemoryCgroup {
 public:
  MemoryCgroup(std::filesystem::path directory, std::string cgroup_path)
      : directory_(std::move(directory)), cgroup_path_(std::move(cgroup_path)) {}
  virtual ~MemoryCgroup() = default;
  virtual CgroupMemoryReading read() const = 0;
  virtual int version() const = 0;
  // The real directory holding memory.* files (already joined under the roots).
  const std::filesystem::path& directory() const { return directory_; }
  // The cgroup path as /proc/PID/cgroup printed it.
  const std::string& cgroup_path() const { return cgroup_path_; }

 private:
  std::filesystem::path directory_;
  std::string cgroup_path_;
};

}  // namespace ftdiag::collect
