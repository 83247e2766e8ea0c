#include "base/read_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace ftdiag {

Fact<std::string> read_small_file(const std::filesystem::path& path, std::size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return missing_from_errno(errno, "open " + path.string());
  std::string content;
  char buffer[8192];
  while (content.size() < max_bytes) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      int saved = errno;
      ::close(fd);
      return missing_from_errno(saved, "read " + path.string());
    }
    content.append(buffer, static_cast<std::size_t>(n));
  }
  ::close(fd);
  if (content.size() > max_bytes) content.resize(max_bytes);
  return content;
}

}  // namespace ftdiag
