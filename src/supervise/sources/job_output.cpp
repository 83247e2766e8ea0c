#include "supervise/sources/job_output.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include <fmt/format.h>

#include "base/clock.h"
#include "supervise/event_loop.h"
#include "supervise/fork_safety.h"
#include "supervise/output_relay.h"
#include "supervise/process_tracker.h"
#include "supervise/relay_process.h"
#include "supervise/spawn.h"
#include "supervise/terminal.h"

namespace ftdiag::supervise {

namespace {

// After the job's end, its last output is logged before the verdict: the
// loop goes on until the relays have read their pipes to the end and written
// it out, or no output came for kQuietSeconds (a daemon the job left holds
// the output: its relay carries on without us).
constexpr double kQuietSeconds = 0.1;
// How long typed keys may wait for room in the job's terminal before they
// are dropped (a job that does not read its input); the loop never blocks longer.
constexpr int kKeysWaitMs = 100;

// A pipe whose ends are not inherited; the errno of pipe2 on failure.
int make_pipe(UniqueFd& read_end, UniqueFd& write_end) {
  int ends[2];
  if (::pipe2(ends, O_CLOEXEC) != 0) return errno;
  read_end.reset(ends[0]);
  write_end.reset(ends[1]);
  return 0;
}

class JobOutput final : public LiveSource {
 public:
  explicit JobOutput(SupervisedRun& run) : run_(run) {}

  std::optional<SupervisorFailure> prepare_job(SpawnRequest& request, evidence::RunStarted& started) override {
    if (::isatty(STDOUT_FILENO)) {
      if (auto pty = open_pseudo_terminal(STDOUT_FILENO)) pty_.emplace(std::move(pty).value());
    }
    started.pseudo_terminal = pty_.has_value();
    if (pty_) {
      request.pty_slave = pty_->slave.get();
      relay_keys_ = ::isatty(STDIN_FILENO);
      request.slave_is_stdin = relay_keys_;
      // Typed keys are written to it without ever blocking the loop (pass_keys).
      ::fcntl(pty_->master.get(), F_SETFL, ::fcntl(pty_->master.get(), F_GETFL) | O_NONBLOCK);
      if (relay_keys_ && !run_.loop().watch(STDIN_FILENO, *this)) return cannot_supervise("relay keys", "epoll_ctl", errno, run_);
      return start_relay(pty_->master.get(), STDOUT_FILENO, evidence::ConsoleStream::terminal, out_);
    }
    int error = make_pipe(out_read_, out_write_);
    if (!error) error = make_pipe(err_read_, err_write_);
    if (error) return cannot_supervise("relay the job's output", "pipe2", error, run_);
    // Best effort (see OutputRelay::kPipeBytes): a job printing in bursts keeps going.
    ::fcntl(out_write_.get(), F_SETPIPE_SZ, OutputRelay::kPipeBytes);
    ::fcntl(err_write_.get(), F_SETPIPE_SZ, OutputRelay::kPipeBytes);
    request.stdout_fd = out_write_.get();
    request.stderr_fd = err_write_.get();
    if (auto failure = start_relay(out_read_.get(), STDOUT_FILENO, evidence::ConsoleStream::out, out_)) return failure;
    return start_relay(err_read_.get(), STDERR_FILENO, evidence::ConsoleStream::err, err_);
  }

  // The relays and the job hold the ends now: end of file on a pipe, or EIO
  // on the pty master, then means that the job's side closed.
  void job_started() override {
    out_read_.reset();
    out_write_.reset();
    err_read_.reset();
    err_write_.reset();
    if (pty_) {
      pty_->slave.reset();
      if (relay_keys_) raw_mode_ = std::make_unique<RawModeGuard>(STDIN_FILENO);
    }
  }

  // Only after a failed start: there is no output of a job to relay.
  void job_not_started() override {
    for (auto* relay : {&out_, &err_}) {
      if (!*relay || !(*relay)->relay_running()) continue;
      ::kill((*relay)->relay_pid(), SIGKILL);
      ::waitpid((*relay)->relay_pid(), nullptr, 0);
      (*relay)->relay_ended();
    }
  }

  void on_ready(int fd) override {
    if (fd == STDIN_FILENO) return pass_keys();
    for (auto* relay : {&out_, &err_}) {
      if (*relay && (*relay)->source_fd() == fd) (*relay)->pump(run_.console(), wall_clock_now());
    }
  }

  void terminal_resized() override {
    if (pty_) copy_window_size(STDOUT_FILENO, pty_->master.get());
  }

  bool claims_exit(pid_t pid, int) override {
    for (auto* relay : {&out_, &err_}) {
      if (*relay && (*relay)->relay_pid() == pid) {
        (*relay)->relay_ended();
        run_.tracker().forget_excluded(pid);
        return true;
      }
    }
    return false;
  }

  bool settled(double now, double job_ended_at) const override {
    for (const auto* relay : {&out_, &err_}) {
      if (!*relay) continue;
      if ((*relay)->is_open()) {
        // Still held by a process of the job: wait while output keeps coming.
        if (now - std::max(job_ended_at, (*relay)->last_read_at()) < kQuietSeconds) return false;
      } else if ((*relay)->relay_running()) {
        return false;  // read to the end; writing the last of it out
      }
    }
    return true;
  }

  // The relays go on for what a process of the job still writes (a daemon
  // it left), without a copy for us (relay_process.h).
  void drain() override {
    const double now = wall_clock_now();
    for (auto* relay : {&out_, &err_}) {
      if (!*relay) continue;
      (*relay)->pump(run_.console(), now);
      if ((*relay)->is_open()) run_.loop().unwatch((*relay)->source_fd());
      (*relay)->close();
    }
  }

  void close() override {
    if (raw_mode_) raw_mode_->restore();
  }

 private:
  std::optional<SupervisorFailure> start_relay(int source, int destination, evidence::ConsoleStream stream,
                                               std::optional<OutputRelay>& relay) {
    const char* const what = "relay the job's output";
    UniqueFd tee_read, tee_write;
    if (int error = make_pipe(tee_read, tee_write)) return cannot_supervise(what, "pipe2", error, run_);
    if (!run_.loop().watch(tee_read.get(), *this)) return cannot_supervise(what, "epoll_ctl", errno, run_);
    if (auto unsafe = unsafe_to_fork()) {
      return SupervisorFailure{kExitCannotSupervise, "ftdiag: cannot relay the job's output: " + *unsafe,
                               run_.run_directory().path()};
    }
    const pid_t pid = start_relay_process({source, destination, tee_write.get()});
    if (pid < 0) return cannot_supervise(what, "fork", errno, run_);
    run_.tracker().exclude(pid);  // ftdiag's own, not the job's
    relay.emplace(std::move(tee_read), pid, stream);
    return std::nullopt;
  }

  void pass_keys() {
    char buffer[4096];
    const ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
    if (n > 0 && pty_) {
      const auto size = static_cast<std::size_t>(n);
      const std::size_t written = write_to_terminal(pty_->master.get(), buffer, size, kKeysWaitMs);
      if (written < size) run_.note(fmt::format("the job's terminal input was full: {} typed byte(s) dropped", size - written));
    } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
      run_.loop().unwatch(STDIN_FILENO);
      relay_keys_ = false;
    }
  }

  SupervisedRun& run_;
  std::optional<PseudoTerminal> pty_;
  std::unique_ptr<RawModeGuard> raw_mode_;
  bool relay_keys_ = false;
  // The job's pipes until it has started (no pty).
  UniqueFd out_read_, out_write_, err_read_, err_write_;
  std::optional<OutputRelay> out_;
  std::optional<OutputRelay> err_;
};

}  // namespace

OpenedSource open_job_output(SourceSetup& setup) { return std::make_unique<JobOutput>(setup.run); }

}  // namespace ftdiag::supervise
