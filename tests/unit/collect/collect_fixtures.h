// Where the collect tests find their fixture trees and files.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/read_file.h"
#include "collect/system_roots.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

namespace ftdiag::collect::testing {

inline std::filesystem::path fixture_path(std::string_view relative) {
  return std::filesystem::path(FTDIAG_FIXTURES_DIR) / relative;
}

// A whole fake filesystem: tests/fixtures/<tree>/proc/..., sys/fs/cgroup/...
inline SystemRoots fixture_roots(std::string_view tree) { return SystemRoots{fixture_path(tree)}; }

// Contents of a fixture file; empty when unreadable, which the caller's
// assertions then reveal.
inline std::string fixture_text(std::string_view relative) {
  return read_small_file(fixture_path(relative)).value_or("");
}

}  // namespace ftdiag::collect::testing
