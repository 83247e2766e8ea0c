// Where the parser tests find the files of tests/fixtures they read as text.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "base/read_file.h"

#ifndef FTDIAG_FIXTURES_DIR
#error "FTDIAG_FIXTURES_DIR must name the absolute path of tests/fixtures"
#endif

namespace ftdiag::parse::testing {

inline std::filesystem::path fixture_path(std::string_view relative) {
  return std::filesystem::path(FTDIAG_FIXTURES_DIR) / relative;
}

// Contents of a fixture file; empty when unreadable, which the caller's
// assertions then reveal.
inline std::string fixture_text(std::string_view relative) {
  return read_small_file(fixture_path(relative)).value_or("");
}

}  // namespace ftdiag::parse::testing
