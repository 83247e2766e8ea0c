// The supervision's event loop and its handlers: signals, child exits,
// netlink events, sampler ticks, output and input.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "base/clock.h"
#include "supervise/job_identity.h"
#include "supervise/signal_policy.h"
#include "supervise/spawn.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ConsoleStream;
using evidence::ExitStatus;

namespace {

// With netlink, a full /proc scan every this many ticks double-checks the tree.
constexpr int kScanEveryTicksWithNetlink = 20;
constexpr int kRelocateCgroupEveryTicks = 10;
constexpr int kSyncEveryTicks = 10;
constexpr double kMinSecondsBetweenDeathSamples = 0.1;
// After the job ends, how long to wait for its output and its tree's deaths.
constexpr double kDrainSeconds = 1.0;

}  // namespace

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
  const double now = wall_clock_now();
  // The connector reports every process on the host; the kernel already
  // dropped the types and thread events not used here (proc_connector_filter.h).
  // Each event is handled as it is decoded, in order (a fork must be tracked
  // before its child's own fork is judged), and one outside the tree is
  // rejected by a hash lookup before any other work; saying so lets the
  // connector pace its reads while only such events arrive.
  const bool complete = netlink_->drain([this, now](const ProcEvent& e) {
    switch (e.kind) {
      case ProcEvent::Kind::fork:
        if (e.pid != e.tgid || !tracker_.may_concern(e.parent_tgid)) return false;
        record_seen(tracker_.on_fork(e.parent_tgid, e.tgid, now));
        return true;
      case ProcEvent::Kind::exec:
        if (!tracker_.is_live(e.tgid)) return false;
        record_seen(tracker_.on_exec(e.tgid, now));
        return true;
      case ProcEvent::Kind::exit:
        if (e.pid != e.tgid || !tracker_.may_concern(e.tgid)) return false;
        record_death(tracker_.on_exit(e.tgid, ExitStatus::from_wait_status(e.exit_status), "netlink", now));
        return true;
      case ProcEvent::Kind::other: break;
    }
    return false;
  });
  if (!complete && !netlink_lost_events_) {
    netlink_lost_events_ = true;
    journal_.append(evidence::SupervisorNote{wall_clock_now(), "netlink lost events (socket overflow); scanning /proc"});
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

}  // namespace ftdiag::supervise
