// This machine's name, as runs record it and as a post-mortem compares it.
#pragma once

#include <string>

namespace ftdiag::collect {

// gethostname(2); "unknown-host" when it fails.
std::string host_name();

}  // namespace ftdiag::collect
