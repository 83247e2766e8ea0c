// Whether a memory cgroup is the watched job's alone: the condition for
// resetting a counter that every reader of the cgroup sees (cgroup v1's
// max_usage_in_bytes).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

// True when every process in `cgroup_dir` and in the cgroups below it is
// `root_pid` or descends from it (its parent chain in roots' /proc reaches
// root_pid): nothing else is charged to the cgroup, so its counters are the
// tree's to reset. Missing with the first foreign process ("pid 812 (bash)
// shares the cgroup") or the read that failed. Reads at most kMaxCgroups
// cgroup.procs files.
Fact<bool> cgroup_holds_only_tree_of(const SystemRoots& roots, const std::filesystem::path& cgroup_dir, int root_pid);

// The first process in `cgroup_dir` or below that is outside root_pid's
// tree, as "pid 812 (bash)"; nullopt when the tree has the cgroup to itself.
// Missing: a read failed. (cgroup_holds_only_tree_of is this as a yes/no.)
Fact<std::optional<std::string>> first_process_outside_tree(const SystemRoots& roots, const std::filesystem::path& cgroup_dir,
                                                            int root_pid);

inline constexpr std::size_t kMaxCgroups = 256;

}  // namespace ftdiag::collect
