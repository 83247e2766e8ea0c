#include "supervise/output_relay.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>

namespace ftdiag::supervise {

OutputRelay::OutputRelay(UniqueFd tee, pid_t relay_pid, evidence::ConsoleStream stream)
    : source_(std::move(tee)),
      relay_pid_(relay_pid),
      stream_(stream),
      buffer_(std::make_unique_for_overwrite<char[]>(kBufferBytes)) {
  int flags = ::fcntl(source_.get(), F_GETFL);
  ::fcntl(source_.get(), F_SETFL, flags | O_NONBLOCK);
  // Best effort: above the system's limit the default capacity works, only
  // with more wakeups.
  ::fcntl(source_.get(), F_SETPIPE_SZ, kPipeBytes);
}

bool OutputRelay::pump(journal::ConsoleLogWriter& log, double now) {
  std::size_t moved = 0;
  while (source_.valid() && moved < kBytesPerPump) {
    ssize_t n = ::read(source_.get(), buffer_.get(), kBufferBytes);
    if (n > 0) {
      const auto size = static_cast<std::size_t>(n);
      log.feed(stream_, std::string_view(buffer_.get(), size), now);
      last_read_at_ = now;
      moved += size;
      // A pipe's read takes all it holds, so a short one emptied it: epoll
      // (level-triggered) says when more comes, which saves the read that
      // would only say EAGAIN.
      if (size < kBufferBytes) return true;
      continue;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return true;
    source_.reset();  // end of file: the relay read the end of the job's output
    return false;
  }
  return source_.valid();
}

}  // namespace ftdiag::supervise
