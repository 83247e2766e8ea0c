#include "collect/host/proc_statm.h"

#include <unistd.h>

#include <fmt/format.h>

#include "collect/read_parsed.h"
#include "collect/host/text_scan.h"

namespace ftdiag::collect {

Fact<ProcStatm> parse_proc_statm(std::string_view text, std::uint64_t page_size) {
  auto parts = text::fields(text);
  std::optional<std::uint64_t> bytes[3];
  for (std::size_t i = 0; i < 3 && i < parts.size(); ++i) {
    if (auto pages = text::to_u64(parts[i])) bytes[i] = text::checked_mul(*pages, page_size);
  }
  if (!bytes[0] || !bytes[1] || !bytes[2]) {
    return Missing{MissingReason::unparseable,
                   fmt::format("/proc/PID/statm: expected three page counts in {} bytes",
                               text.size())};
  }
  return ProcStatm{*bytes[0], *bytes[1], *bytes[2]};
}

Fact<ProcStatm> read_proc_statm(const SystemRoots& roots, int pid) {
  auto page_size = static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE));
  return read_parsed(roots.path(fmt::format("/proc/{}/statm", pid)), 4096,
                     [page_size](std::string_view text) { return parse_proc_statm(text, page_size); });
}

}  // namespace ftdiag::collect
