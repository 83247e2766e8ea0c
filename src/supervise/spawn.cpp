#include "supervise/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <variant>

#include <fmt/format.h>

namespace ftdiag::supervise {

namespace {

// Runs in the forked child, before exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const SpawnRequest& request, char* const* argv, int error_pipe) {
  sigset_t none;
  sigemptyset(&none);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  if (request.pty_slave) {
    ::setsid();
    ::ioctl(*request.pty_slave, TIOCSCTTY, 0);
    if (request.slave_is_stdin) ::dup2(*request.pty_slave, STDIN_FILENO);
    ::dup2(*request.pty_slave, STDOUT_FILENO);
    ::dup2(*request.pty_slave, STDERR_FILENO);
  }
  if (request.stdout_fd) ::dup2(*request.stdout_fd, STDOUT_FILENO);
  if (request.stderr_fd) ::dup2(*request.stderr_fd, STDERR_FILENO);
  if (request.oom_score_adj) {
    int fd = ::open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);
    if (fd >= 0) {
      [[maybe_unused]] auto n = ::write(fd, request.oom_score_adj->data(), request.oom_score_adj->size());
      ::close(fd);
    }
  }
  ::execvp(argv[0], argv);
  int error = errno;
  [[maybe_unused]] auto n = ::write(error_pipe, &error, sizeof error);
  ::_exit(127);
}

}  // namespace

std::variant<pid_t, SpawnFailure> spawn_job(const SpawnRequest& request) {
  if (request.argv.empty()) return SpawnFailure{EINVAL, "no command given"};
  std::vector<char*> argv;
  for (const auto& arg : request.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return SpawnFailure{errno, "pipe2 failed"};
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return SpawnFailure{error, fmt::format("fork failed: {}", std::strerror(error))};
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    exec_child(request, argv.data(), pipe_fds[1]);
  }
  ::close(pipe_fds[1]);
  int child_error = 0;
  ssize_t n;
  do {
    n = ::read(pipe_fds[0], &child_error, sizeof child_error);
  } while (n < 0 && errno == EINTR);
  ::close(pipe_fds[0]);
  if (n == static_cast<ssize_t>(sizeof child_error)) {
    ::waitpid(pid, nullptr, 0);
    return SpawnFailure{child_error, fmt::format("cannot run {}: {}", request.argv[0], std::strerror(child_error))};
  }
  return pid;
}

}  // namespace ftdiag::supervise
