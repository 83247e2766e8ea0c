#include "collect/host/oom_daemons.h"

#include <algorithm>
#include <array>

#include "collect/host/process_list.h"
#include "collect/host/proc_stat.h"

namespace ftdiag::collect {

bool is_oom_daemon(std::string_view comm) {
  static constexpr std::array kNames = {std::string_view("systemd-oomd"), std::string_view("earlyoom"),
                                        std::string_view("oomd"), std::string_view("nohang"),
                                        std::string_view("low-memory-moni")};  // comm is cut at 15 bytes
  return std::find(kNames.begin(), kNames.end(), comm) != kNames.end();
}

Fact<std::vector<std::string>> running_oom_daemons(const SystemRoots& roots) {
  auto pids = list_pids(roots);
  if (!pids) return pids.missing();
  std::vector<std::string> found;
  for (int pid : pids.value()) {
    auto stat = read_proc_stat(roots, pid);
    if (stat && is_oom_daemon(stat->comm)) found.push_back(stat->comm);
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace ftdiag::collect
