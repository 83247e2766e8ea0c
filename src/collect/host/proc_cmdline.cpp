#include "collect/host/proc_cmdline.h"

#include <fmt/format.h>

#include "base/read_file.h"
#include "collect/host/text_scan.h"

namespace ftdiag::collect {

std::vector<std::string> parse_proc_cmdline(std::string_view text) {
  if (text.empty()) return {};
  if (text.back() == '\0') text.remove_suffix(1);
  std::vector<std::string> args;
  for (auto arg : text::split(text, '\0')) args.emplace_back(arg);
  return args;
}

Fact<std::vector<std::string>> read_proc_cmdline(const SystemRoots& roots, int pid) {
  auto content = read_small_file(roots.path(fmt::format("/proc/{}/cmdline", pid)),
                                 kMaxCmdlineBytes);
  if (!content) return content.missing();
  return parse_proc_cmdline(*content);
}

}  // namespace ftdiag::collect
