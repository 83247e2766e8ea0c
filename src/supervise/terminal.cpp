#include "supervise/terminal.h"

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>

namespace ftdiag::supervise {

Fact<PseudoTerminal> open_pseudo_terminal(int like_fd) {
  termios settings{};
  winsize size{};
  const bool have_settings = ::tcgetattr(like_fd, &settings) == 0;
  const bool have_size = ::ioctl(like_fd, TIOCGWINSZ, &size) == 0;
  int master = -1;
  int slave = -1;
  if (::openpty(&master, &slave, nullptr, have_settings ? &settings : nullptr,
                have_size ? &size : nullptr) != 0) {
    return missing_from_errno(errno, "openpty");
  }
  UniqueFd master_fd(master);
  UniqueFd slave_fd(slave);
  // openpty's descriptors are inheritable; the job must only get the slave,
  // and only as its standard streams.
  ::fcntl(master, F_SETFD, FD_CLOEXEC);
  ::fcntl(slave, F_SETFD, FD_CLOEXEC);
  return PseudoTerminal{std::move(master_fd), std::move(slave_fd)};
}

std::size_t write_to_terminal(int master, const char* bytes, std::size_t size, int wait_ms) {
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = ::write(master, bytes + done, size - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    pollfd room{master, POLLOUT, 0};
    if (n < 0 && errno == EAGAIN && ::poll(&room, 1, wait_ms) > 0) continue;
    break;  // no room in time, or the job's side is gone
  }
  return done;
}

void copy_window_size(int from, int to) {
  winsize size{};
  if (::ioctl(from, TIOCGWINSZ, &size) == 0) ::ioctl(to, TIOCSWINSZ, &size);
}

RawModeGuard::RawModeGuard(int fd) : fd_(fd) {
  termios mode{};
  if (::tcgetattr(fd, &mode) != 0) return;
  saved_ = mode;
  ::cfmakeraw(&mode);
  // TCSANOW, not TCSAFLUSH: keys typed before the job started are its input.
  ::tcsetattr(fd, TCSANOW, &mode);
}

void RawModeGuard::restore() {
  if (saved_) ::tcsetattr(fd_, TCSADRAIN, &*saved_);
  saved_.reset();
}

}  // namespace ftdiag::supervise
