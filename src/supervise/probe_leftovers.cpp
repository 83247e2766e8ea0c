#include "supervise/probe_leftovers.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <optional>
#include <string_view>

namespace ftdiag::supervise {

namespace {

// The pid in "python-faults.<pid>.txt" or "python-stacks.<pid>.txt".
std::optional<pid_t> probe_file_pid(std::string_view name) {
  for (std::string_view stem : {"python-faults.", "python-stacks."}) {
    if (!name.starts_with(stem) || !name.ends_with(".txt")) continue;
    const std::string_view digits = name.substr(stem.size(), name.size() - stem.size() - 4);
    pid_t pid = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), pid);
    if (error == std::errc() && end == digits.data() + digits.size() && pid > 0) return pid;
  }
  return std::nullopt;
}

bool runs(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

}  // namespace

std::size_t remove_empty_probe_files(int dir_fd) {
  const int listing_fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (listing_fd < 0) return 0;
  DIR* dir = ::fdopendir(listing_fd);
  if (!dir) {
    ::close(listing_fd);
    return 0;
  }
  std::size_t removed = 0;
  while (const dirent* entry = ::readdir(dir)) {
    const auto pid = probe_file_pid(entry->d_name);
    if (!pid) continue;
    struct stat st {};
    if (::fstatat(dir_fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_size != 0 || runs(*pid)) continue;
    if (::unlinkat(dir_fd, entry->d_name, 0) == 0) ++removed;
  }
  ::closedir(dir);
  return removed;
}

}  // namespace ftdiag::supervise
