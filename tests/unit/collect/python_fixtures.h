// Where the Python environment tests find their fake installations
// (tests/fixtures/python, assembled with their native libraries in the
// build tree), and a scratch folder for trees a test makes itself.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include <doctest/doctest.h>

#ifndef FTDIAG_PYTHON_FIXTURES_DIR
#error "FTDIAG_PYTHON_FIXTURES_DIR must name the build tree's tests/fixtures/python"
#endif

namespace ftdiag::collect::testing {

// tests/fixtures/python/<relative> as built: "torch-cu128", "cuda-11/libcudart.so.11.0".
inline std::string python_fixture(std::string_view relative) {
  return (std::filesystem::path(FTDIAG_PYTHON_FIXTURES_DIR) / relative).string();
}

// A fresh folder under /tmp, removed with everything in it at the end.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    char pattern[] = "/tmp/ftdiag-python-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    root_ = pattern;
  }
  ~ScratchDirectory() {
    std::error_code ignored;
    std::filesystem::remove_all(root_, ignored);
  }
  ScratchDirectory(const ScratchDirectory&) = delete;
  ScratchDirectory& operator=(const ScratchDirectory&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::string path(std::string_view relative) const { return (root_ / relative).string(); }

  // Writes a file (folders made as needed); executable when asked.
  std::string write(std::string_view relative, std::string_view content, bool executable = false) const {
    const auto file = root_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    if (executable) std::filesystem::permissions(file, std::filesystem::perms::owner_all);
    return file.string();
  }

 private:
  std::filesystem::path root_;
};

}  // namespace ftdiag::collect::testing
