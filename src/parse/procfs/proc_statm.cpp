#include "parse/procfs/proc_statm.h"

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {

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

}  // namespace ftdiag::parse
