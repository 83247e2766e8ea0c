#include "collect/host/proc_cmdline.h"

#include <fmt/format.h>

#include "base/read_file.h"

namespace ftdiag::collect {

Fact<std::vector<std::string>> read_proc_cmdline(const SystemRoots& roots, int pid) {
  auto content = read_small_file(roots.path(fmt::format("/proc/{}/cmdline", pid)),
                                 kMaxCmdlineBytes);
  if (!content) return content.missing();
  return parse::parse_proc_cmdline(*content);
}

}  // namespace ftdiag::collect
