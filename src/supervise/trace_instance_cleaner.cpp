#include "supervise/trace_instance_cleaner.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace ftdiag::supervise {

namespace {

bool copy_path(char (&to)[512], const std::string& from) {
  if (from.size() >= sizeof to) return false;
  std::memcpy(to, from.c_str(), from.size() + 1);
  return true;
}

// Everything below runs in the forked cleaner too: system calls only.

void sleep_ms(int ms) {
  timespec pause{0, ms * 1'000'000L};
  while (::nanosleep(&pause, &pause) != 0 && errno == EINTR) {
  }
}

void write_zero(const char* path) {
  const int fd = ::open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return;
  [[maybe_unused]] ssize_t ignored = ::write(fd, "0", 1);
  ::close(fd);
}

void close_all_but(int keep) {
  if (keep > 0) ::syscall(SYS_close_range, 0u, static_cast<unsigned>(keep) - 1, 0u);
  ::syscall(SYS_close_range, static_cast<unsigned>(keep) + 1, ~0u, 0u);
}

// A Ctrl-C, a SIGTERM to the group or a hangup must not stop the cleanup.
void ignore_group_signals() {
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    ::sigaction(sig, &ignore, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

[[noreturn]] void clean_when_owner_ends(int cleaner_end, const TraceInstanceUndo& undo) {
  ::prctl(PR_SET_NAME, "ftdiag-cleaner");
  ::setpgid(0, 0);  // out of ftdiag's process group: a kill of the group is what we clean up after
  ignore_group_signals();
  close_all_but(cleaner_end);
  // Holding no directory open: the cleaner must not keep any file system busy.
  [[maybe_unused]] int ignored = ::chdir("/");
  char word = 0;
  ssize_t n;
  do n = ::read(cleaner_end, &word, 1);
  while (n < 0 && errno == EINTR);
  // 0: every copy of the owner's end is closed without a word, the owner is
  // gone. The owner's trace_pipe closes in the same exit, maybe a moment
  // later: give rmdir time.
  if (n <= 0) undo_trace_instance(undo, 2000);
  ::_exit(0);
}

}  // namespace

std::optional<TraceInstanceUndo> make_trace_instance_undo(const std::string& event_enable,
                                                          const std::string& instance,
                                                          const std::string& mount_point) {
  TraceInstanceUndo undo;
  if (!copy_path(undo.event_enable, event_enable) || !copy_path(undo.instance, instance) ||
      !copy_path(undo.mount_point, mount_point)) {
    return std::nullopt;
  }
  return undo;
}

bool undo_trace_instance(const TraceInstanceUndo& undo, int busy_wait_ms) noexcept {
  // Disabled first, so the kernel stops recording even if rmdir must wait.
  write_zero(undo.event_enable);
  constexpr int kStepMs = 10;
  int waited = 0;
  while (::rmdir(undo.instance) != 0 && errno == EBUSY && waited < busy_wait_ms) {
    sleep_ms(kStepMs);
    waited += kStepMs;
  }
  const bool gone = ::access(undo.instance, F_OK) != 0 && errno == ENOENT;
  // Plain umount: a tracefs that another tracer uses now stays (EBUSY).
  if (gone && undo.mount_point[0] != '\0') ::umount2(undo.mount_point, 0);
  return gone;
}

std::optional<TraceInstanceCleaner> TraceInstanceCleaner::start(const TraceInstanceUndo& undo) {
  int ends[2];
  // A stream socket rather than a pipe: the owner's word is sent with
  // MSG_NOSIGNAL, so a cleaner that died cannot cost the owner a SIGPIPE.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) return std::nullopt;
  UniqueFd owner_end(ends[0]), cleaner_end(ends[1]);
  const pid_t pid = ::fork();
  if (pid == 0) clean_when_owner_ends(cleaner_end.get(), undo);
  if (pid < 0) return std::nullopt;
  return TraceInstanceCleaner(std::move(owner_end), pid);
}

void TraceInstanceCleaner::dismiss() {
  if (!owner_end_.valid()) return;
  ::send(owner_end_.get(), "x", 1, MSG_NOSIGNAL);
  owner_end_.reset();
  while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
}

}  // namespace ftdiag::supervise
