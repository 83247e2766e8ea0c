#include "supervise/relay_process.h"

#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <initializer_list>

namespace ftdiag::supervise {

namespace {

// Everything below runs in the forked relay: system calls only, no
// allocation (fork_safety.h), the buffer is static.
char relay_buffer[128 * 1024];  // as OutputRelay::kBufferBytes: few system calls per MB

// Waits while `fd` would block: an inherited O_NONBLOCK (a shell may leave
// one on a terminal; ftdiag sets it on the pty master they share) must not
// make the relay spin or give up.
void wait_for(int fd, short events) {
  pollfd waiting{fd, events, 0};
  ::poll(&waiting, 1, -1);
}

bool write_all(int fd, const char* bytes, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, bytes, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      wait_for(fd, POLLOUT);
      continue;
    }
    if (n <= 0) return false;
    bytes += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

void close_all_but(std::array<int, 3> keep) {
  std::sort(keep.begin(), keep.end());
  unsigned first = 0;
  for (int fd : keep) {
    if (fd < 0) continue;
    if (static_cast<unsigned>(fd) > first) ::syscall(SYS_close_range, first, static_cast<unsigned>(fd) - 1, 0u);
    first = static_cast<unsigned>(fd) + 1;
  }
  ::syscall(SYS_close_range, first, ~0u, 0u);
}

void ignore_group_signals() {
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE}) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(sig, &ignore, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void relay(RelayEnds ends) {
  ::prctl(PR_SET_NAME, "ftdiag-relay");
  ignore_group_signals();
  close_all_but({ends.source, ends.destination, ends.tee});
  while (true) {
    ssize_t n = ::read(ends.source, relay_buffer, sizeof relay_buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN) {
      wait_for(ends.source, POLLIN);
      continue;
    }
    if (n <= 0) break;  // 0: every writer closed; EIO: the pty's last slave closed
    const auto size = static_cast<std::size_t>(n);
    if (ends.tee >= 0 && !write_all(ends.tee, relay_buffer, size)) {
      ::close(ends.tee);  // ftdiag stopped listening; the job's output goes on
      ends.tee = -1;
    }
    if (!write_all(ends.destination, relay_buffer, size)) break;
  }
  ::_exit(0);
}

}  // namespace

pid_t start_relay_process(const RelayEnds& ends) {
  const pid_t pid = ::fork();
  if (pid == 0) relay(ends);
  return pid;
}

}  // namespace ftdiag::supervise
