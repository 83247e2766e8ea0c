#include "supervise/output_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <cerrno>

namespace ftdiag::supervise {

bool write_fully(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, bytes, size);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd waiting{fd, POLLOUT, 0};
        ::poll(&waiting, 1, -1);
        continue;
      }
      return false;
    }
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

OutputRelay::OutputRelay(UniqueFd source, int destination, evidence::ConsoleStream stream)
    : source_(std::move(source)), destination_(destination), stream_(stream) {
  int flags = ::fcntl(source_.get(), F_GETFL);
  ::fcntl(source_.get(), F_SETFL, flags | O_NONBLOCK);
}

bool OutputRelay::pump(evidence::ConsoleLogWriter& log, double now) {
  if (!source_.valid()) return false;
  char buffer[64 * 1024];
  for (int round = 0; round < 16; ++round) {  // bounded, so one chatty stream cannot starve the loop
    ssize_t n = ::read(source_.get(), buffer, sizeof buffer);
    if (n > 0) {
      log.feed(stream_, std::string_view(buffer, static_cast<std::size_t>(n)), now);
      if (!write_fully(destination_, buffer, static_cast<std::size_t>(n)) && errno == EPIPE) {
        source_.reset();
        return false;
      }
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    source_.reset();  // 0: end of file; EIO: the pty's last slave closed
    return false;
  }
  return true;
}

}  // namespace ftdiag::supervise
