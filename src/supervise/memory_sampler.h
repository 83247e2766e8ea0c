// One tick of memory watermarks: the node, the job's memory cgroup, /dev/shm
// and each live process of the tree. Reads only (collectors); the records it
// returns are the journal's.
#pragma once

#include <memory>
#include <vector>

#include "collect/memory_cgroup.h"
#include "collect/system_roots.h"
#include "evidence/records.h"

namespace ftdiag::supervise {

class MemorySampler {
 public:
  explicit MemorySampler(collect::SystemRoots roots) : roots_(std::move(roots)) {}

  // Finds the memory cgroup of `pid` (the job). Called at start and again now
  // and then, since a job may move itself into another cgroup. Returns true
  // when the cgroup changed.
  bool locate_cgroup_of(int pid);

  evidence::MemorySample sample(const std::vector<int>& pids, double now) const;

 private:
  collect::SystemRoots roots_;
  std::unique_ptr<collect::MemoryCgroup> cgroup_;
  Missing cgroup_missing_{MissingReason::not_present, "cgroup not located yet"};
};

}  // namespace ftdiag::supervise
