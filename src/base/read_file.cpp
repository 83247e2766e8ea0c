#include "base/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "base/unique_fd.h"

namespace ftdiag {

namespace {

Fact<std::string> read_up_to(int fd, std::size_t max_bytes, const std::string& name) {
  std::string content;
  char buffer[8192];
  while (content.size() < max_bytes) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      return missing_from_errno(errno, "read " + name);
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  if (content.size() > max_bytes) content.resize(max_bytes);
  return content;
}

}  // namespace

Fact<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) return missing_from_errno(errno, "open " + path.string());
  return read_up_to(fd.get(), max_bytes, path.string());
}

Fact<std::string> read_small_file_at(int dir_fd, const std::string& name, std::size_t max_bytes) {
  UniqueFd fd(::openat(dir_fd, name.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK));
  if (!fd.valid()) return missing_from_errno(errno, "open " + name);
  return read_up_to(fd.get(), max_bytes, name);
}

Fact<std::string> read_small_file_fd(int fd, const std::string& name, std::size_t max_bytes) {
  return read_up_to(fd, max_bytes, name);
}

}  // namespace ftdiag
