#include "collect/host/proc_statm.h"

#include <unistd.h>

#include <fmt/format.h>

#include "collect/read_parsed.h"

namespace ftdiag::collect {

Fact<parse::ProcStatm> read_proc_statm(const SystemRoots& roots, int pid) {
  auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return read_parsed(roots.path(fmt::format("/proc/{}/statm", pid)), 4096,
                     [page_size](std::string_view text) { return parse::parse_proc_statm(text, page_size); });
}

}  // namespace ftdiag::collect
