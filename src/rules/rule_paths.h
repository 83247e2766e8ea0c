// Where the built-in rules live: $FTDIAG_RULES_DIR, else
// <dir of the ftdiag binary>/../share/ftdiag/rules (an installed tree), else
// the source tree's rules/ (a build that was not installed).
#pragma once

#include <filesystem>

namespace ftdiag::rules {

std::filesystem::path builtin_rules_directory();

}  // namespace ftdiag::rules
