#include "supervise/supervisor.h"

#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "base/clock.h"
#include "evidence/background_sync.h"
#include "evidence/journal_writer.h"
#include "evidence/job_directory.h"
#include "supervise/job_identity.h"
#include "supervise/memory_sampler.h"
#include "supervise/output_relay.h"
#include "supervise/proc_connector.h"
#include "supervise/process_tracker.h"
#include "supervise/signal_policy.h"
#include "supervise/spawn.h"
#include "supervise/terminal.h"

namespace ftdiag::supervise {

namespace {

using evidence::ConsoleStream;
using evidence::ExitStatus;

enum EventSource : std::uint64_t { kSignals = 1, kTimer, kNetlink, kRelayOut, kRelayErr, kStdin };

// With netlink, a full /proc scan every this many ticks double-checks the tree.
constexpr int kScanEveryTicksWithNetlink = 20;
constexpr int kRelocateCgroupEveryTicks = 10;
constexpr int kSyncEveryTicks = 10;
constexpr double kMinSecondsBetweenDeathSamples = 0.1;
// After the job ends, how long to wait for its output and its tree's deaths.
constexpr double kDrainSeconds = 1.0;

class Supervision {
 public:
  Supervision(const SupervisorOptions& options, evidence::RunDirectory dir, evidence::JournalWriter journal,
              evidence::ConsoleLogWriter console)
      : options_(options),
        dir_(std::move(dir)),
        journal_(std::move(journal)),
        console_(std::move(console)),
        tracker_(options.roots, ::getpid()),
        sampler_(options.roots) {}

  std::variant<SupervisedJob, SupervisorFailure> run();

 private:
  void prepare_mechanisms();
  std::optional<SupervisorFailure> start_job();
  void event_loop();
  void add_to_epoll(int fd, EventSource source);
  void on_signals();
  void on_child_exits();
  void on_tick();
  void on_netlink();
  void on_stdin();
  void record_seen(const std::optional<evidence::ProcessSeen>& seen);
  void record_death(const std::optional<evidence::ProcessDied>& died);
  void apply_scan();
  void take_sample();
  void finish();
  bool relays_open() const;

  const SupervisorOptions& options_;
  evidence::RunDirectory dir_;
  evidence::JournalWriter journal_;
  evidence::ConsoleLogWriter console_;
  ProcessTracker tracker_;
  MemorySampler sampler_;
  evidence::RunStarted started_;
  std::unique_ptr<evidence::BackgroundSync> syncer_;  // started once the job is forked

  std::optional<ProcConnector> netlink_;
  bool netlink_lost_events_ = false;
  UniqueFd epoll_;
  UniqueFd signal_fd_;
  UniqueFd timer_fd_;
  sigset_t old_mask_{};
  std::optional<PseudoTerminal> pty_;
  std::unique_ptr<RawModeGuard> raw_mode_;
  std::optional<OutputRelay> out_relay_;
  std::optional<OutputRelay> err_relay_;
  bool relay_stdin_ = false;
  std::optional<std::string> original_oom_score_adj_;

  pid_t job_pid_ = -1;
  std::optional<ExitStatus> job_status_;
  double job_ended_at_ = 0;
  double last_death_sample_ = 0;
  std::uint64_t ticks_ = 0;
};

void Supervision::prepare_mechanisms() {
  auto& mechanisms = started_.mechanisms;
  if (::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0) {
    mechanisms.emplace("subreaper", true);
  } else {
    mechanisms.emplace("subreaper", missing_from_errno(errno, "prctl(PR_SET_CHILD_SUBREAPER)"));
  }
  if (options_.disable_netlink) {
    mechanisms.emplace("netlink", Missing{MissingReason::unsupported, "disabled by --no-netlink"});
  } else if (auto connector = ProcConnector::open()) {
    netlink_.emplace(std::move(connector).value());
    mechanisms.emplace("netlink", true);
  } else {
    mechanisms.emplace("netlink", connector.missing());
  }
  mechanisms.emplace("proc-scan", true);
  auto original = read_own_oom_score_adj();
  if (!original) {
    mechanisms.emplace("oom-protection", original.missing());
    return;
  }
  auto lowered = lower_own_oom_score_adj();
  if (lowered) original_oom_score_adj_ = original.value();
  mechanisms.emplace("oom-protection", lowered);
}

std::optional<SupervisorFailure> Supervision::start_job() {
  SpawnRequest request;
  request.argv = options_.argv;
  request.oom_score_adj = original_oom_score_adj_;
  std::optional<UniqueFd> out_read, err_read;
  UniqueFd out_write, err_write;
  if (::isatty(STDOUT_FILENO)) {
    if (auto pty = open_pseudo_terminal(STDOUT_FILENO)) pty_.emplace(std::move(pty).value());
  }
  if (pty_) {
    request.pty_slave = pty_->slave.get();
    relay_stdin_ = ::isatty(STDIN_FILENO);
    request.slave_is_stdin = relay_stdin_;
  } else {
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) {
      return SupervisorFailure{125, fmt::format("ftdiag: cannot create pipes: {}", std::strerror(errno)), dir_.path()};
    }
    out_read.emplace(out_pipe[0]);
    out_write.reset(out_pipe[1]);
    err_read.emplace(err_pipe[0]);
    err_write.reset(err_pipe[1]);
    request.stdout_fd = out_write.get();
    request.stderr_fd = err_write.get();
  }
  auto spawned = spawn_job(request);
  if (auto* failure = std::get_if<SpawnFailure>(&spawned)) {
    int code = failure->error_number == ENOENT ? 127 : 126;
    return SupervisorFailure{code, "ftdiag: " + failure->message, dir_.path()};
  }
  job_pid_ = std::get<pid_t>(spawned);
  if (pty_) {
    pty_->slave.reset();  // the job holds it now; EIO on the master then means "job side closed"
    out_relay_.emplace(std::move(pty_->master), STDOUT_FILENO, ConsoleStream::terminal);
    if (relay_stdin_) raw_mode_ = std::make_unique<RawModeGuard>(STDIN_FILENO);
  } else {
    out_relay_.emplace(std::move(*out_read), STDOUT_FILENO, ConsoleStream::out);
    err_relay_.emplace(std::move(*err_read), STDERR_FILENO, ConsoleStream::err);
  }
  return std::nullopt;
}

void Supervision::add_to_epoll(int fd, EventSource source) {
  epoll_event event{};
  event.events = EPOLLIN;
  event.data.u64 = source;
  ::epoll_ctl(epoll_.get(), EPOLL_CTL_ADD, fd, &event);
}

void Supervision::record_seen(const std::optional<evidence::ProcessSeen>& seen) {
  if (seen) journal_.append(*seen);
}

void Supervision::record_death(const std::optional<evidence::ProcessDied>& died) {
  if (!died) return;
  console_.flush();  // the last words before a death belong on disk with it
  journal_.append(*died);
  syncer_->request();
  if (died->time - last_death_sample_ >= kMinSecondsBetweenDeathSamples) {
    last_death_sample_ = died->time;
    take_sample();  // catches the cgroup's oom_kill counter right after the kill
  }
}

void Supervision::take_sample() {
  journal_.append(sampler_.sample(tracker_.live_pids(), wall_clock_now()));
}

void Supervision::apply_scan() {
  auto result = tracker_.scan(wall_clock_now());
  for (auto& seen : result.seen) record_seen(seen);
  for (auto& died : result.died) record_death(died);
}

void Supervision::on_child_exits() {
  int wait_status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0) {
    const double now = wall_clock_now();
    auto status = ExitStatus::from_wait_status(wait_status);
    if (pid == job_pid_) {
      job_status_ = status;
      job_ended_at_ = now;
    }
    record_death(tracker_.on_exit(pid, status, pid == job_pid_ ? "waitpid" : "subreaper", now));
  }
}

void Supervision::on_signals() {
  signalfd_siginfo info{};
  while (::read(signal_fd_.get(), &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    const int sig = static_cast<int>(info.ssi_signo);
    if (sig == SIGCHLD) {
      on_child_exits();
    } else if (sig == SIGWINCH) {
      if (out_relay_ && pty_ && out_relay_->is_open()) copy_window_size(STDOUT_FILENO, out_relay_->source_fd());
    } else if (!job_status_ && should_forward(sig, info.ssi_code, /*job_shares_our_terminal_group=*/!pty_)) {
      ::kill(job_pid_, sig);
      journal_.append(evidence::SupervisorNote{wall_clock_now(), fmt::format("forwarded {} to the job", evidence::signal_name(sig))});
    }
  }
}

void Supervision::on_netlink() {
  std::vector<ProcEvent> events;
  if (!netlink_->drain(events) && !netlink_lost_events_) {
    netlink_lost_events_ = true;
    journal_.append(evidence::SupervisorNote{wall_clock_now(), "netlink lost events (socket overflow); scanning /proc"});
  }
  const double now = wall_clock_now();
  for (const auto& e : events) {
    if (e.kind == ProcEvent::Kind::fork && e.pid == e.tgid) {
      record_seen(tracker_.on_fork(e.parent_tgid, e.tgid, now));
    } else if (e.kind == ProcEvent::Kind::exec) {
      record_seen(tracker_.on_exec(e.tgid, now));
    } else if (e.kind == ProcEvent::Kind::exit && e.pid == e.tgid) {
      record_death(tracker_.on_exit(e.tgid, ExitStatus::from_wait_status(e.exit_status), "netlink", now));
    }
  }
  if (netlink_lost_events_) {
    apply_scan();
    netlink_lost_events_ = false;
  }
}

void Supervision::on_tick() {
  std::uint64_t expirations = 0;
  [[maybe_unused]] auto n = ::read(timer_fd_.get(), &expirations, sizeof expirations);
  ++ticks_;
  if (!netlink_ || ticks_ % kScanEveryTicksWithNetlink == 0) apply_scan();
  if (!job_status_ && ticks_ % kRelocateCgroupEveryTicks == 0 && sampler_.locate_cgroup_of(job_pid_)) {
    journal_.append(evidence::SupervisorNote{wall_clock_now(), "the job moved to another memory cgroup"});
  }
  take_sample();
  console_.flush();
  if (ticks_ % kSyncEveryTicks == 0) syncer_->request();
}

void Supervision::on_stdin() {
  char buffer[4096];
  ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
  if (n > 0 && out_relay_ && out_relay_->is_open()) {
    write_fully(out_relay_->source_fd(), buffer, static_cast<std::size_t>(n));
  } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, STDIN_FILENO, nullptr);
    relay_stdin_ = false;
  }
}

bool Supervision::relays_open() const {
  return (out_relay_ && out_relay_->is_open()) || (err_relay_ && err_relay_->is_open());
}

void Supervision::event_loop() {
  epoll_ = UniqueFd(::epoll_create1(EPOLL_CLOEXEC));
  add_to_epoll(signal_fd_.get(), kSignals);
  add_to_epoll(timer_fd_.get(), kTimer);
  if (netlink_) add_to_epoll(netlink_->fd(), kNetlink);
  if (out_relay_) add_to_epoll(out_relay_->source_fd(), kRelayOut);
  if (err_relay_) add_to_epoll(err_relay_->source_fd(), kRelayErr);
  if (relay_stdin_) add_to_epoll(STDIN_FILENO, kStdin);
  // A SIGCHLD that came before the signalfd existed is still pending and is
  // read from it, so no exit is missed.
  epoll_event events[16];
  while (true) {
    if (job_status_) {
      const double left = job_ended_at_ + kDrainSeconds - wall_clock_now();
      if (!relays_open() || left <= 0) break;
    }
    int timeout_ms = job_status_ ? 50 : -1;
    int count = ::epoll_wait(epoll_.get(), events, 16, timeout_ms);
    if (count < 0 && errno != EINTR) break;
    for (int i = 0; i < count; ++i) {
      const double now = wall_clock_now();
      switch (events[i].data.u64) {
        case kSignals: on_signals(); break;
        case kTimer: on_tick(); break;
        case kNetlink: on_netlink(); break;
        case kRelayOut: out_relay_->pump(console_, now); break;
        case kRelayErr: err_relay_->pump(console_, now); break;
        case kStdin: on_stdin(); break;
        default: break;
      }
    }
  }
}

void Supervision::finish() {
  const double now = wall_clock_now();
  if (out_relay_) out_relay_->pump(console_, now);
  if (err_relay_) err_relay_->pump(console_, now);
  if (netlink_) on_netlink();
  on_child_exits();
  apply_scan();
  take_sample();
  if (auto still = tracker_.live_pids(); !still.empty()) {
    journal_.append(evidence::SupervisorNote{now, fmt::format("{} process(es) of the job tree still ran when the job ended: {}",
                                                              still.size(), fmt::join(still, ", "))});
  }
  syncer_.reset();  // joins the worker after its last sync
  console_.finish();
  journal_.append_durable(evidence::RunEnded{wall_clock_now(), *job_status_});
  if (raw_mode_) raw_mode_->restore();
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

std::variant<SupervisedJob, SupervisorFailure> Supervision::run() {
  sigset_t mask;
  sigemptyset(&mask);
  for (int sig : supervised_signals()) sigaddset(&mask, sig);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask_);
  signal_fd_ = UniqueFd(::signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC));
  timer_fd_ = UniqueFd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));

  prepare_mechanisms();
  started_.time = wall_clock_now();
  started_.ftdiag_version = FTDIAG_VERSION;
  started_.host = host_name();
  started_.rank = rank_from_environment();
  started_.argv = options_.argv;
  started_.cwd = current_directory();
  started_.supervisor_pid = ::getpid();
  started_.sample_interval_s = options_.sample_interval_s;

  if (auto failure = start_job()) {
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    journal_.append(started_);
    journal_.append(evidence::SupervisorNote{wall_clock_now(), failure->message});
    journal_.append_durable(evidence::RunEnded{wall_clock_now(), ExitStatus::exited(failure->exit_code)});
    return *failure;
  }
  started_.job_pid = job_pid_;
  started_.pseudo_terminal = pty_.has_value();
  syncer_ = std::make_unique<evidence::BackgroundSync>(std::vector<int>{journal_.fd(), console_.fd()});
  journal_.append(started_);
  syncer_->request();
  record_seen(tracker_.adopt(job_pid_, "spawn", wall_clock_now(), options_.argv));
  sampler_.locate_cgroup_of(job_pid_);
  take_sample();

  const double interval = options_.sample_interval_s;
  itimerspec period{};
  period.it_interval.tv_sec = static_cast<time_t>(interval);
  period.it_interval.tv_nsec = static_cast<long>((interval - std::floor(interval)) * 1e9);
  period.it_value = period.it_interval;
  ::timerfd_settime(timer_fd_.get(), 0, &period, nullptr);

  event_loop();
  finish();
  return SupervisedJob{*job_status_, dir_.path()};
}

}  // namespace

std::variant<SupervisedJob, SupervisorFailure> supervise(const SupervisorOptions& options) {
  const std::string host = host_name();
  const auto rank = rank_from_environment();
  const auto job_dir = options.job_dir.empty() ? evidence::default_job_directory(host, ::getpid()) : options.job_dir;
  auto dir = evidence::RunDirectory::create(job_dir, evidence::run_folder_name(host, rank, ::getpid()));
  if (!dir) return SupervisorFailure{125, "ftdiag: cannot create the job directory: " + dir.missing().detail, {}};
  auto journal = dir->create_file(evidence::kJournalFileName);
  auto console = dir->create_file(evidence::kConsoleFileName);
  if (!journal || !console) {
    const auto& why = !journal ? journal.missing() : console.missing();
    return SupervisorFailure{125, "ftdiag: cannot create the journal: " + why.detail, dir->path()};
  }
  Supervision supervision(options, std::move(dir).value(), evidence::JournalWriter(std::move(journal).value()),
                          evidence::ConsoleLogWriter(std::move(console).value()));
  return supervision.run();
}

}  // namespace ftdiag::supervise
