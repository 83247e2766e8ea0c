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

#include "supervise/command_path.h"
#include "supervise/errno_remedy.h"
#include "supervise/fork_safety.h"

extern char** environ;

namespace ftdiag::supervise {

namespace {

// What the child needs, built before the fork: pointers into the request's
// strings, so the child allocates nothing.
struct ExecPlan {
  std::string path;
  std::vector<char*> argv;
  std::vector<char*> envp;
  // execvp runs a file without a "#!" line (ENOEXEC) with /bin/sh; so do we.
  std::vector<char*> shell_argv;
};

std::vector<char*> pointers_to(const std::vector<std::string>& strings, std::size_t skip = 0) {
  std::vector<char*> pointers;
  for (std::size_t i = skip; i < strings.size(); ++i) pointers.push_back(const_cast<char*>(strings[i].c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

ExecPlan plan_exec(const SpawnRequest& request, std::string path) {
  ExecPlan plan{std::move(path), pointers_to(request.argv), pointers_to(request.environment), {}};
  static char shell[] = "/bin/sh";
  plan.shell_argv = {shell, plan.path.data()};
  auto rest = pointers_to(request.argv, 1);
  plan.shell_argv.insert(plan.shell_argv.end(), rest.begin(), rest.end());
  return plan;
}

// Runs in the forked child, before exec: only async-signal-safe calls.
[[noreturn]] void exec_child(const SpawnRequest& request, ExecPlan& plan, int error_pipe) {
  if (request.signals) {
    request.signals->restore_in_child();
  } else {
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
  }
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
  ::execve(plan.path.c_str(), plan.argv.data(), plan.envp.data());
  if (errno == ENOEXEC) ::execve(plan.shell_argv[0], plan.shell_argv.data(), plan.envp.data());
  int error = errno;
  [[maybe_unused]] auto n = ::write(error_pipe, &error, sizeof error);
  ::_exit(127);
}

SpawnFailure exec_failure(const std::string& command, int error) {
  return SpawnFailure{SpawnFailure::Stage::exec, error, fmt::format("cannot run {}: {}", command, std::strerror(error))};
}

SpawnFailure start_failure(const char* call, int error) {
  return SpawnFailure{SpawnFailure::Stage::cannot_start, error,
                      fmt::format("cannot start the job: {}: {}", call, errno_with_remedy(error))};
}

}  // namespace

std::vector<std::string> current_environment() {
  std::vector<std::string> environment;
  for (char** entry = environ; entry && *entry; ++entry) environment.emplace_back(*entry);
  return environment;
}

std::variant<pid_t, SpawnFailure> spawn_job(const SpawnRequest& request) {
  if (request.argv.empty()) return SpawnFailure{SpawnFailure::Stage::exec, EINVAL, "no command given"};
  auto resolved = resolve_command(request.argv[0], search_path_of(request.environment));
  if (auto* error = std::get_if<int>(&resolved)) return exec_failure(request.argv[0], *error);
  if (auto unsafe = unsafe_to_fork()) {
    return SpawnFailure{SpawnFailure::Stage::cannot_start, 0, "cannot start the job: " + *unsafe};
  }
  ExecPlan plan = plan_exec(request, std::get<std::string>(std::move(resolved)));

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) return start_failure("pipe2", errno);
  pid_t pid = ::fork();
  if (pid < 0) {
    int error = errno;
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    return start_failure("fork", error);
  }
  if (pid == 0) {
    ::close(pipe_fds[0]);
    exec_child(request, plan, pipe_fds[1]);
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
    return exec_failure(request.argv[0], child_error);
  }
  return pid;
}

}  // namespace ftdiag::supervise
