// Memory readings: one definition each, shared by the collectors that read
// them (src/collect/), the journal and the evidence document (src/evidence/,
// whose field tables give their JSON form). Plain data; no behaviour.
//
// Every figure is in bytes. A figure the kernel does not offer here is a
// Missing with the reason (unsupported, not_present), never a zero.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "base/fact.h"

namespace ftdiag::model {

using Bytes = std::uint64_t;

// One process, from /proc/PID/status.
struct ProcessMemory {
  int pid = 0;
  Fact<Bytes> rss = Missing{};
  Fact<Bytes> rss_anon = Missing{};
  Fact<Bytes> rss_file = Missing{};
  Fact<Bytes> rss_shmem = Missing{};
  Fact<Bytes> vm_hwm = Missing{};  // kernel-kept RSS high-water mark
  Fact<Bytes> swap = Missing{};

  bool operator==(const ProcessMemory&) const = default;
};

// The node, from /proc/meminfo.
struct NodeMemory {
  Fact<Bytes> mem_total = Missing{};
  Fact<Bytes> mem_available = Missing{};
  Fact<Bytes> swap_total = Missing{};
  Fact<Bytes> swap_free = Missing{};
  Fact<Bytes> shmem = Missing{};

  bool operator==(const NodeMemory&) const = default;
};

// The memory controller of one cgroup, v1 or v2 (src/collect/host/cgroup_v1.cpp,
// cgroup_v2.cpp fill it; a counter one version lacks is Missing unsupported).
struct CgroupMemory {
  int version = 0;           // 1 or 2
  std::string path;          // as in /proc/PID/cgroup
  Fact<Bytes> usage = Missing{};                 // v1 usage_in_bytes, v2 memory.current
  Fact<std::optional<Bytes>> limit = Missing{};  // nullopt: no limit ("max")
  // High-water mark: v1 max_usage_in_bytes, v2 memory.peak (5.19+).
  Fact<Bytes> peak = Missing{};
  // Whether `peak` is the watched job's own: true when the kernel's peak was
  // reset as ftdiag began watching this cgroup (v1: a cgroup holding only
  // ftdiag's tree; v2: memory.peak reset through the reader's own open file,
  // Linux 6.12+). Missing with the reason otherwise: `peak` then spans the
  // cgroup's whole life (earlier jobs included) and the job's peak is the
  // highest sampled usage.
  Fact<bool> peak_reset = Missing{MissingReason::not_present, "the peak was not reset"};
  // Processes outside the watched job's tree are charged to this cgroup too
  // (a job started in a login session's or a container's cgroup, with no
  // cgroup of its own): `usage` and `peak` are then the cgroup's, not the
  // job's alone. `shared_with` names the first such process found when
  // ftdiag began watching the cgroup, "pid 812 (bash)"; empty when the job's
  // tree had it to itself; Missing when that could not be read.
  Fact<std::string> shared_with = Missing{MissingReason::not_present, "not checked"};
  // v2 memory.events "oom": times the limit was hit and an allocation was
  // about to fail. v1 has no such counter.
  Fact<std::uint64_t> oom_events = Missing{};
  // Processes killed by any OOM killer: v2 events "oom_kill"; v1
  // oom_control "oom_kill" (4.13+).
  Fact<std::uint64_t> oom_kill = Missing{};
  // v2 memory.events "oom_group_kill" (5.17+): OOMs that killed the whole
  // group because memory.oom.group is set. v1 has no group kill.
  Fact<std::uint64_t> oom_group_kill = Missing{};
  // v2 memory.oom.group: one OOM kill takes every process of the cgroup
  // (Kubernetes sets it for containers on cgroup v2): then no launcher is left
  // to print anything.
  Fact<bool> oom_group = Missing{};
  // Times usage hit the limit: v2 events "max"; v1 memory.failcnt.
  Fact<std::uint64_t> max_events = Missing{};
  // Swap charged: v2 memory.swap.current; v1 memory.stat total_swap|swap.
  Fact<Bytes> swap = Missing{};
  // From memory.stat: v2 anon/file/shmem; v1 total_rss|rss, total_cache|cache,
  // total_shmem|shmem (hierarchical totals preferred).
  Fact<Bytes> anon = Missing{};
  Fact<Bytes> file = Missing{};
  Fact<Bytes> shmem = Missing{};
  // v1 oom_control "under_oom": tasks frozen waiting for memory
  // (oom_kill_disable 1). v2 has no equivalent.
  Fact<bool> under_oom = Missing{};

  bool operator==(const CgroupMemory&) const = default;
};

// A filesystem's space (statvfs), e.g. /dev/shm.
struct FilesystemUsage {
  Bytes total = 0;
  Bytes used = 0;
  Bytes available = 0;

  bool operator==(const FilesystemUsage&) const = default;
};

}  // namespace ftdiag::model
