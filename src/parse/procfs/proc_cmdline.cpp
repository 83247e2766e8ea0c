#include "parse/procfs/proc_cmdline.h"

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {

std::vector<std::string> parse_proc_cmdline(std::string_view text) {
  if (text.empty()) return {};
  if (text.back() == '\0') text.remove_suffix(1);
  std::vector<std::string> args;
  for (auto arg : text::split(text, '\0')) args.emplace_back(arg);
  return args;
}

}  // namespace ftdiag::parse
