// Filesystem capacity, chiefly /dev/shm: PyTorch DataLoader workers pass
// tensors through it, and a full /dev/shm kills them with SIGBUS.
#pragma once

#include <cstdint>
#include <filesystem>

#include "base/fact.h"
#include "collect/system_roots.h"

namespace ftdiag::collect {

struct FsUsage {
  std::uint64_t total = 0;      // bytes: f_blocks * f_frsize
  std::uint64_t used = 0;       // bytes: (f_blocks - f_bfree) * f_frsize
  std::uint64_t available = 0;  // bytes an unprivileged writer may still use: f_bavail * f_frsize

  bool operator==(const FsUsage&) const = default;
};

// statvfs(3) of path. Failure is a Missing from errno (not_present when the
// path does not exist).
Fact<FsUsage> read_filesystem_usage(const std::filesystem::path& path);

// read_filesystem_usage(roots.path("/dev/shm")).
Fact<FsUsage> read_dev_shm_usage(const SystemRoots& roots);

}  // namespace ftdiag::collect
