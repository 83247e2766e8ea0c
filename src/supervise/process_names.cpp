#include "supervise/process_names.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collect/host/proc_cmdline.h"
#include "collect/host/proc_stat.h"

namespace ftdiag::supervise {

std::string process_comm(const collect::SystemRoots& roots, int pid) {
  auto stat = collect::read_proc_stat(roots, pid);
  return stat ? stat->comm : std::string();
}

std::string process_command_line(const collect::SystemRoots& roots, int pid, std::size_t max_bytes) {
  auto argv = collect::read_proc_cmdline(roots, pid);
  if (!argv) return {};
  std::string text = fmt::format("{}", fmt::join(argv.value(), " "));
  if (text.size() > max_bytes) text.resize(max_bytes);
  return text;
}

}  // namespace ftdiag::supervise
