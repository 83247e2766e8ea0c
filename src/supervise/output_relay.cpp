#include "supervise/output_relay.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

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
    : source_(std::move(source)),
      destination_(destination),
      stream_(stream),
      buffer_(std::make_unique_for_overwrite<char[]>(kBufferBytes)) {
  int flags = ::fcntl(source_.get(), F_GETFL);
  ::fcntl(source_.get(), F_SETFL, flags | O_NONBLOCK);
  // Best effort: fails on a pty master (not a pipe) or above the system's
  // limit, and the default capacity works, only with more wakeups.
  ::fcntl(source_.get(), F_SETPIPE_SZ, kPipeBytes);
  struct stat status {};
  is_pipe_ = ::fstat(source_.get(), &status) == 0 && S_ISFIFO(status.st_mode);
}

bool OutputRelay::pump(evidence::ConsoleLogWriter& log, double now) {
  std::size_t moved = 0;
  while (source_.valid() && moved < kBytesPerPump) {
    ssize_t n = ::read(source_.get(), buffer_.get(), kBufferBytes);
    if (n > 0) {
      const auto size = static_cast<std::size_t>(n);
      log.feed(stream_, std::string_view(buffer_.get(), size), now);
      if (!write_fully(destination_, buffer_.get(), size) && errno == EPIPE) {
        source_.reset();
        return false;
      }
      moved += size;
      // A pipe's read takes all it holds, so a short one emptied it: epoll
      // (level-triggered) says when more comes, which saves the read that
      // would only say EAGAIN. A pty hands out a little at a time: read on.
      if (is_pipe_ && size < kBufferBytes) return true;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    source_.reset();  // 0: end of file; EIO: the pty's last slave closed
    return false;
  }
  return source_.valid();
}

}  // namespace ftdiag::supervise
