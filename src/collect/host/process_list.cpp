#include "collect/host/process_list.h"

#include <algorithm>
#include <deque>
#include <map>
#include <set>
#include <system_error>

#include "base/text.h"

namespace ftdiag::collect {

Fact<std::vector<int>> list_pids(const SystemRoots& roots) {
  auto proc = roots.path("/proc");
  std::error_code error;
  std::filesystem::directory_iterator it(proc, error);
  if (error) return missing_from_errno(error.value(), "list " + proc.string());
  std::vector<int> pids;
  // The non-throwing increment: entries disappear under us all the time.
  for (; it != std::filesystem::directory_iterator(); it.increment(error)) {
    if (error) break;
    auto pid = text::to_int(it->path().filename().native());
    if (pid && *pid > 0) pids.push_back(*pid);
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::vector<parse::ProcStat> find_descendants(const SystemRoots& roots, int ancestor) {
  auto pids = list_pids(roots);
  if (!pids) return {};
  std::map<int, std::vector<parse::ProcStat>> children;  // by ppid; pids ascending within
  for (int pid : *pids) {
    auto stat = read_proc_stat(roots, pid);
    if (stat) children[stat->ppid].push_back(std::move(*stat));
  }
  std::vector<parse::ProcStat> out;
  std::set<int> seen{ancestor};  // guards against a ppid cycle in a corrupt tree
  std::deque<int> queue{ancestor};
  while (!queue.empty()) {
    int parent = queue.front();
    queue.pop_front();
    auto found = children.find(parent);
    if (found == children.end()) continue;
    for (auto& child : found->second) {
      if (!seen.insert(child.pid).second) continue;
      queue.push_back(child.pid);
      out.push_back(child);
    }
  }
  return out;
}

}  // namespace ftdiag::collect
