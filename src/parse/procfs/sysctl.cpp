#include "parse/procfs/sysctl.h"

#include <fmt/format.h>

#include "parse/procfs/procfs_text.h"

namespace ftdiag::parse {

Fact<int> parse_sysctl_int(std::string_view text) {
  if (auto value = text::to_int(text::trim(text))) return *value;
  return Missing{MissingReason::unparseable, fmt::format("expected a number, got {} bytes", text.size())};
}

Fact<std::string> parse_core_pattern(std::string_view text) {
  if (text.ends_with('\n')) text.remove_suffix(1);  // only the newline the kernel adds: spaces may matter
  return std::string(text);
}

}  // namespace ftdiag::parse
