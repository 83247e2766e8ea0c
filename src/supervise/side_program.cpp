#include "supervise/side_program.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

extern char** environ;

namespace ftdiag::supervise {

Fact<SideProgram> SideProgram::start(const std::vector<std::string>& argv, bool capture_output) {
  if (argv.empty()) return Missing{MissingReason::failed, "no command"};
  UniqueFd read_end, write_end;
  if (capture_output) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return missing_from_errno(errno, "pipe2");
    read_end.reset(fds[0]);
    write_end.reset(fds[1]);
    ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);
  }
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attributes;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attributes);
  for (int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (fd == STDOUT_FILENO && capture_output) {
      posix_spawn_file_actions_adddup2(&actions, write_end.get(), STDOUT_FILENO);  // dup2 clears CLOEXEC
      continue;
    }
    posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == STDIN_FILENO ? O_RDONLY : O_WRONLY, 0);
  }
  // ftdiag blocks the signals its signalfd takes; the program gets a clean
  // mask and default dispositions, in a process group of its own.
  sigset_t empty, all;
  sigemptyset(&empty);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  posix_spawnattr_setsigmask(&attributes, &empty);
  posix_spawnattr_setsigdefault(&attributes, &all);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = -1;
  const int error = ::posix_spawn(&pid, args[0], &actions, &attributes, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attributes);
  if (error != 0) return missing_from_errno(error, fmt::format("posix_spawn {}", argv[0]));
  return SideProgram(pid, std::move(read_end));
}

void SideProgram::stop() {
  if (ended_) return;
  ::kill(-pid_, SIGKILL);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  ended(status);
}

void SideProgram::ended(int wait_status) {
  ended_ = true;
  wait_status_ = wait_status;
}


}  // namespace ftdiag::supervise
