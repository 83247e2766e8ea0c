#include "collect/host/cgroup_owner.h"

#include <optional>
#include <string>

#include <fmt/format.h>

#include "collect/host/proc_stat.h"
#include "collect/read_parsed.h"
#include "parse/procfs/cgroup_files.h"

namespace ftdiag::collect {

namespace {

constexpr std::size_t kMaxProcsBytes = 4 << 20;  // 7 bytes a pid: about 600k processes
// A parent chain longer than this is not a real tree (pid_max is 4M, but
// trees are shallow); give up rather than loop.
constexpr int kMaxAncestors = 1024;

// False when `pid` is not root_pid's descendant; a process that ended
// meanwhile is no one's, and cannot hold memory against the limit.
bool in_tree(const SystemRoots& roots, int pid, int root_pid) {
  int at = pid;
  for (int step = 0; step < kMaxAncestors && at > 1; ++step) {
    if (at == root_pid) return true;
    auto stat = read_proc_stat(roots, at);
    if (!stat && at == pid && stat.missing().reason == MissingReason::not_present) return true;
    if (!stat) break;  // an ancestor ended: the chain does not reach root_pid
    at = stat->ppid;
  }
  return at == root_pid;
}

std::string describe_process(const SystemRoots& roots, int pid) {
  auto stat = read_proc_stat(roots, pid);
  return fmt::format("pid {} ({})", pid, stat ? stat->comm : "?");
}

Fact<std::optional<std::string>> outsider_in_one(const SystemRoots& roots, const std::filesystem::path& dir, int root_pid) {
  auto pids = read_parsed(dir / "cgroup.procs", kMaxProcsBytes, parse::parse_cgroup_procs);
  if (!pids) return pids.missing();
  for (int pid : *pids) {
    if (!in_tree(roots, pid, root_pid)) return std::optional<std::string>(describe_process(roots, pid));
  }
  return std::optional<std::string>();
}

}  // namespace

Fact<std::optional<std::string>> first_process_outside_tree(const SystemRoots& roots, const std::filesystem::path& cgroup_dir,
                                                            int root_pid) {
  if (auto own = outsider_in_one(roots, cgroup_dir, root_pid); !own || own->has_value()) return own;
  std::error_code ec;
  std::size_t seen = 1;
  for (auto it = std::filesystem::recursive_directory_iterator(cgroup_dir, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) continue;
    if (++seen > kMaxCgroups) return Missing{MissingReason::failed, fmt::format("more than {} cgroups below it", kMaxCgroups)};
    if (auto below = outsider_in_one(roots, it->path(), root_pid); !below || below->has_value()) return below;
  }
  if (ec) return missing_from_errno(ec.value(), "list the cgroups below " + cgroup_dir.string());
  return std::optional<std::string>();
}

Fact<bool> cgroup_holds_only_tree_of(const SystemRoots& roots, const std::filesystem::path& cgroup_dir, int root_pid) {
  auto outsider = first_process_outside_tree(roots, cgroup_dir, root_pid);
  if (!outsider) return outsider.missing();
  if (outsider->has_value()) return Missing{MissingReason::not_present, **outsider + " shares the cgroup"};
  return true;
}

}  // namespace ftdiag::collect
