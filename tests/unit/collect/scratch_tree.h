// A fresh folder under /tmp for tests that build a tree of files (configs,
// checkpoint folders), removed with everything in it at the end.
#pragma once

#include <doctest/doctest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace ftdiag::collect::testing {

class ScratchTree {
 public:
  ScratchTree() {
    char pattern[] = "/tmp/ftdiag-tree-XXXXXX";
    REQUIRE(::mkdtemp(pattern) != nullptr);
    root_ = pattern;
  }
  ~ScratchTree() {
    std::error_code ignored;
    std::filesystem::permissions(root_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(root_, ignored);
  }
  ScratchTree(const ScratchTree&) = delete;
  ScratchTree& operator=(const ScratchTree&) = delete;

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path path(std::string_view relative) const { return root_ / relative; }

  // Writes a file, folders made as needed.
  std::filesystem::path write(std::string_view relative, std::string_view content) const {
    const auto file = root_ / relative;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file;
  }

 private:
  std::filesystem::path root_;
};

}  // namespace ftdiag::collect::testing
