#include "collect/helpers/helper_program.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/unique_fd.h"

extern char** environ;

namespace ftdiag::collect {

namespace {

using Clock = std::chrono::steady_clock;

// How often a child's end is checked for when the kernel has no pidfd
// (before Linux 5.3): its exit cannot be polled for otherwise.
constexpr int kReapPollMs = 20;

std::string signal_text(int sig) {
  // sigabbrev_np (glibc 2.32) gives "SEGV"; null for a number it does not know.
  if (const char* abbrev = ::sigabbrev_np(sig)) return fmt::format("SIG{}", abbrev);
  return fmt::format("signal {}", sig);
}

// What posix_spawn needs besides the argv: the child's own process group (so
// the deadline kills what it started too), an empty signal mask and default
// dispositions (ftdiag blocks signals for its signalfd and ignores some; a
// helper must not inherit either).
class SpawnAttributes {
 public:
  SpawnAttributes() {
    ::posix_spawnattr_init(&attr_);
    sigset_t empty;
    sigemptyset(&empty);
    sigset_t catchable;
    sigfillset(&catchable);
    sigdelset(&catchable, SIGKILL);
    sigdelset(&catchable, SIGSTOP);
    ::posix_spawnattr_setflags(&attr_, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    ::posix_spawnattr_setpgroup(&attr_, 0);
    ::posix_spawnattr_setsigmask(&attr_, &empty);
    ::posix_spawnattr_setsigdefault(&attr_, &catchable);
  }
  ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
  SpawnAttributes(const SpawnAttributes&) = delete;
  SpawnAttributes& operator=(const SpawnAttributes&) = delete;
  const posix_spawnattr_t* get() const { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

// stdin from /dev/null, stdout and stderr into the pipes' write ends. dup2
// clears O_CLOEXEC on the copies; the originals close at exec.
class SpawnFiles {
 public:
  SpawnFiles(int out, int err) {
    ::posix_spawn_file_actions_init(&actions_);
    ::posix_spawn_file_actions_addopen(&actions_, 0, "/dev/null", O_RDONLY, 0);
    ::posix_spawn_file_actions_adddup2(&actions_, out, 1);
    ::posix_spawn_file_actions_adddup2(&actions_, err, 2);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
    // ftdiag's descriptors that lack O_CLOEXEC (a job's pipe, its pty) must
    // not live on in a helper that hangs.
    ::posix_spawn_file_actions_addclosefrom_np(&actions_, 3);
#endif
  }
  ~SpawnFiles() { ::posix_spawn_file_actions_destroy(&actions_); }
  SpawnFiles(const SpawnFiles&) = delete;
  SpawnFiles& operator=(const SpawnFiles&) = delete;
  const posix_spawn_file_actions_t* get() const { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// One pipe end being drained into `kept`, up to `limit` bytes.
struct Drain {
  UniqueFd fd;
  std::string* kept;
  std::size_t limit;
  bool overflowed = false;
};

// Reads what is there now; closes the end at EOF or on an error.
void drain_once(Drain& drain) {
  char buffer[65536];
  const ssize_t n = ::read(drain.fd.get(), buffer, sizeof buffer);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    drain.fd.reset();
    return;
  }
  const std::size_t room = drain.limit - std::min(drain.limit, drain.kept->size());
  const std::size_t take = std::min(room, static_cast<std::size_t>(n));
  drain.kept->append(buffer, take);
  if (take < static_cast<std::size_t>(n)) drain.overflowed = true;
}

// The child, watched until it has exited and both pipes are closed, or the
// deadline passed.
class Watch {
 public:
  Watch(pid_t pid, Drain out, Drain err, Clock::time_point deadline)
      : pid_(pid), deadline_(deadline), out_(std::move(out)), err_(std::move(err)) {
    // A pidfd makes the child's end pollable beside its pipes (Linux 5.3).
    const long fd = ::syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) pidfd_.reset(static_cast<int>(fd));
  }

  // Returns false when the deadline passed first.
  bool run() {
    while (out_.fd.valid() || err_.fd.valid() || !reaped_) {
      const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) return false;
      wait_once(static_cast<int>(std::min<long long>(left, 60'000)));
    }
    return true;
  }

  // At the deadline: the whole group, then the child reaped. Not when
  // another waiter took the child: its pid, and so the group's id, may
  // already name someone else.
  void kill_and_reap() {
    if (lost_) return;
    ::kill(-pid_, SIGKILL);
    if (!reaped_) reap(0);
  }

  // The wait status; nullopt when another waiter reaped the child first.
  std::optional<int> status() const { return lost_ ? std::nullopt : std::optional<int>(status_); }
  bool output_overflowed() const { return out_.overflowed; }

 private:
  void wait_once(int timeout_ms) {
    pollfd fds[3];
    nfds_t count = 0;
    for (const Drain* drain : {&out_, &err_}) {
      if (drain->fd.valid()) fds[count++] = pollfd{drain->fd.get(), POLLIN, 0};
    }
    if (!reaped_ && pidfd_.valid()) fds[count++] = pollfd{pidfd_.get(), POLLIN, 0};
    if (!reaped_ && !pidfd_.valid()) timeout_ms = std::min(timeout_ms, kReapPollMs);
    const int ready = ::poll(fds, count, timeout_ms);
    if (ready < 0) return;  // EINTR: the loop recomputes the time left
    for (nfds_t i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == out_.fd.get()) drain_once(out_);
      else if (fds[i].fd == err_.fd.get()) drain_once(err_);
    }
    if (!reaped_) reap(WNOHANG);
  }

  // Always this pid, never -1: ftdiag's other children are not ours to reap.
  void reap(int flags) {
    int status = 0;
    pid_t got;
    do {
      got = ::waitpid(pid_, &status, flags);
    } while (got < 0 && errno == EINTR);
    if (got == pid_) {
      reaped_ = true;
      status_ = status;
    } else if (got < 0 && errno == ECHILD) {
      // A waitpid(-1) elsewhere in the process (the supervisor's loop) took
      // it: it has ended, how is lost.
      reaped_ = true;
      lost_ = true;
    }
  }

  pid_t pid_;
  Clock::time_point deadline_;
  Drain out_;
  Drain err_;
  UniqueFd pidfd_;
  bool reaped_ = false;
  bool lost_ = false;
  int status_ = 0;
};

// A pipe end moved above 2: when ftdiag runs with a standard descriptor
// closed, a pipe could get 0, 1 or 2, and the child's own dup2s onto those
// numbers would clobber it.
UniqueFd above_standard(int fd) {
  UniqueFd owned(fd);
  if (fd > 2) return owned;
  return UniqueFd(::fcntl(fd, F_DUPFD_CLOEXEC, 3));
}

bool make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  read_end = above_standard(fds[0]);
  write_end = above_standard(fds[1]);
  return read_end.valid() && write_end.valid();
}

HelperResult could_not_start(std::string why) {
  HelperResult result;
  result.ending = HelperResult::Ending::could_not_start;
  result.start_error = std::move(why);
  return result;
}

void fill_ending(HelperResult& result, std::optional<int> wait_status) {
  if (!wait_status) {
    result.ending = HelperResult::Ending::exited;
    result.exit_code = -1;  // not a code a program can exit with: unknown
    return;
  }
  const int status = *wait_status;
  if (WIFSIGNALED(status)) {
    result.ending = HelperResult::Ending::killed_by_signal;
    result.signal = WTERMSIG(status);
  } else {
    result.ending = HelperResult::Ending::exited;
    result.exit_code = WEXITSTATUS(status);
  }
}

}  // namespace

std::string HelperResult::describe() const {
  switch (ending) {
    case Ending::exited: return fmt::format("exited with code {}", exit_code);
    case Ending::killed_by_signal: return fmt::format("killed by {}", signal_text(signal));
    case Ending::timed_out: return fmt::format("timed out after {:.1f} s", seconds);
    case Ending::could_not_start: return fmt::format("could not start: {}", start_error);
  }
  return "ended in an unknown way";
}

HelperResult run_helper(const HelperRequest& request) {
  if (request.argv.empty() || request.argv[0].empty()) return could_not_start("no program given");
  const auto started = Clock::now();
  UniqueFd out_read, out_write, err_read, err_write;
  if (!make_pipe(out_read, out_write) || !make_pipe(err_read, err_write)) {
    return could_not_start(fmt::format("pipe: {}", ::strerror(errno)));
  }
  const SpawnAttributes attributes;
  const SpawnFiles files(out_write.get(), err_write.get());
  auto argv = c_strings(request.argv);
  std::vector<char*> envp;
  if (request.environment) envp = c_strings(*request.environment);
  pid_t pid = 0;
  // posix_spawnp looks argv[0] up on PATH when it has no slash, and reports
  // an exec failure as its return value (glibc runs the child until exec).
  const int error = ::posix_spawnp(&pid, argv[0], files.get(), attributes.get(), argv.data(),
                                   request.environment ? envp.data() : environ);
  if (error != 0) return could_not_start(fmt::format("execve {}: {}", request.argv[0], ::strerror(error)));
  // Only the child may hold the write ends, or EOF never comes.
  out_write.reset();
  err_write.reset();

  HelperResult result;
  Watch watch(pid, Drain{std::move(out_read), &result.output, request.max_output},
              Drain{std::move(err_read), &result.errors, request.max_errors}, started + request.deadline);
  if (watch.run()) {
    fill_ending(result, watch.status());
  } else {
    watch.kill_and_reap();
    result.ending = HelperResult::Ending::timed_out;
    result.signal = SIGKILL;
  }
  result.output_truncated = watch.output_overflowed();
  result.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return result;
}

}  // namespace ftdiag::collect
