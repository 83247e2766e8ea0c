#include "rules/rule_paths.h"

#include <cstdlib>

namespace ftdiag::rules {

std::filesystem::path builtin_rules_directory() {
  if (const char* env = std::getenv("FTDIAG_RULES_DIR"); env && *env) return env;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto installed = exe.parent_path().parent_path() / "share" / "ftdiag" / "rules";
    if (std::filesystem::is_directory(installed, ec)) return installed;
  }
  return FTDIAG_SOURCE_RULES_DIR;
}

}  // namespace ftdiag::rules
