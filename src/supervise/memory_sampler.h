// One tick of memory watermarks: the node, the job's memory cgroup, /dev/shm
// and each live process of the tree. Reads only (collectors); the records it
// returns are the journal's.
#pragma once

#include <unistd.h>

#include <memory>
#include <unordered_map>
#include <vector>

#include "collect/host/memory_cgroup.h"
#include "collect/system_roots.h"
#include "evidence/records.h"

namespace ftdiag::supervise {

class MemorySampler {
 public:
  // `supervisor_pid`: the root of the watched tree (ftdiag itself), whose
  // descendants alone may share a cgroup whose peak is reset.
  explicit MemorySampler(collect::SystemRoots roots, int supervisor_pid = ::getpid())
      : roots_(std::move(roots)), supervisor_pid_(supervisor_pid) {}

  // Finds the memory cgroup of `pid` (the job). Called at start and again now
  // and then, since a job may move itself into another cgroup. Returns true
  // when the cgroup changed. A newly found cgroup's peak is reset when that
  // is ours to do (reset_peak), so that its readings' peak is the job's own;
  // each reading's peak_reset says whether it is, or why not.
  bool locate_cgroup_of(int pid);

  // Reads everything for this tick. A process's reading is included when it
  // is new, when its RSS moved by more than kRssChangeBytes or kRssChangeRatio
  // since it was last included, and at least every kRefreshTicks samples: the
  // journal then grows with change, not with the number of idle processes.
  evidence::MemorySample sample(const std::vector<int>& pids, double now);

  // The located cgroup, or null.
  const collect::MemoryCgroup* cgroup() const { return cgroup_.get(); }

  static constexpr std::uint64_t kRssChangeBytes = 1 << 20;
  static constexpr double kRssChangeRatio = 0.02;
  static constexpr std::uint64_t kRefreshTicks = 20;

 private:
  struct Recorded {
    std::uint64_t rss = 0;
    std::uint64_t tick = 0;
  };
  // Takes `fresh` as the job's cgroup; true when it is another than before.
  bool locate_from(std::unique_ptr<collect::MemoryCgroup> fresh);
  bool worth_recording(const evidence::ProcessMemory& reading);
  void reset_peak();

  std::unordered_map<int, Recorded> recorded_;
  std::uint64_t tick_ = 0;
  collect::SystemRoots roots_;
  int supervisor_pid_;
  std::unique_ptr<collect::MemoryCgroup> cgroup_;
  Missing cgroup_missing_{MissingReason::not_present, "cgroup not located yet"};
  Fact<std::string> shared_with_ = Missing{MissingReason::not_present, "not checked"};  // model::CgroupMemory::shared_with
};

}  // namespace ftdiag::supervise
