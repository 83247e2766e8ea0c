#include "supervise/fork_safety.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <string_view>

#include <fmt/format.h>

namespace ftdiag::supervise {

int count_own_threads() {
  int fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  char buffer[4096];
  ssize_t n = ::read(fd, buffer, sizeof buffer - 1);
  ::close(fd);
  if (n <= 0) return -1;
  buffer[n] = '\0';
  const std::string_view status(buffer, static_cast<std::size_t>(n));
  const auto at = status.find("\nThreads:");
  if (at == std::string_view::npos) return -1;
  return static_cast<int>(std::strtol(buffer + at + 9, nullptr, 10));
}

std::optional<std::string> unsafe_to_fork() {
  const int threads = count_own_threads();
  if (threads <= 1) return std::nullopt;
  return fmt::format("{} threads exist; ftdiag forks only while it has one (a bug in ftdiag)", threads);
}

}  // namespace ftdiag::supervise
