#include "collect/host/dev_shm.h"

#include <sys/statvfs.h>

#include <cerrno>

namespace ftdiag::collect {

Fact<FsUsage> read_filesystem_usage(const std::filesystem::path& path) {
  struct statvfs info {};
  int rc;
  do {
    rc = ::statvfs(path.c_str(), &info);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return missing_from_errno(errno, "statvfs " + path.string());
  // f_frsize is the unit of the block counts; some filesystems leave it 0.
  std::uint64_t unit = info.f_frsize != 0 ? info.f_frsize : info.f_bsize;
  std::uint64_t free_blocks = info.f_bfree <= info.f_blocks ? info.f_bfree : info.f_blocks;
  return FsUsage{info.f_blocks * unit, (info.f_blocks - free_blocks) * unit, info.f_bavail * unit};
}

Fact<FsUsage> read_dev_shm_usage(const SystemRoots& roots) {
  return read_filesystem_usage(roots.path("/dev/shm"));
}

}  // namespace ftdiag::collect
