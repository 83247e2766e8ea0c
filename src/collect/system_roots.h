// The one place where absolute kernel paths (/proc, /sys/fs/cgroup, /dev/shm)
// become real filesystem paths.
//
// Every reader in collect/ takes a SystemRoots and builds its paths with
// roots.path("/proc/123/status"). Production uses root "/"; tests point root at
// a fixture tree that mimics a whole filesystem (tests/fixtures/<name>/proc/...).
#pragma once

#include <filesystem>
#include <string_view>

namespace ftdiag::collect {

struct SystemRoots {
  std::filesystem::path root = "/";

  // Maps an absolute kernel path ("/proc/self/mountinfo") under root. Leading
  // slashes are dropped so the path is joined, not substituted. Never throws
  // beyond allocation failure; performs no I/O.
  std::filesystem::path path(std::string_view absolute) const;
};

}  // namespace ftdiag::collect
