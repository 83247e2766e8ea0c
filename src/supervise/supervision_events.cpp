// The supervision's event loop and its handlers: signals, child exits,
// netlink events, sampler ticks, output and input.
#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/clock.h"
#include "collect/host/proc_cmdline.h"
#include "collect/host/proc_stat.h"
#include "evidence/probe_marker_json.h"
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
// Kernel records journaled per run: past this a flooding host log is noted,
// not recorded.
constexpr std::uint64_t kMaxKernelRecordsPerRun = 100000;
constexpr std::size_t kMaxSenderCommand = 500;

std::string read_comm(const collect::SystemRoots& roots, int pid) {
  auto stat = collect::read_proc_stat(roots, pid);
  return stat ? stat->comm : std::string();
}

std::string read_command_line(const collect::SystemRoots& roots, int pid) {
  auto argv = collect::read_proc_cmdline(roots, pid);
  if (!argv) return {};
  std::string text = fmt::format("{}", fmt::join(argv.value(), " "));
  if (text.size() > kMaxSenderCommand) text.resize(kMaxSenderCommand);
  return text;
}
// After the job's end, its last output is logged before the verdict: the
// loop goes on until the relays have read their pipes to the end and written
// it out, or no output came for kQuietSeconds (a daemon the job left holds the
// output: its relay carries on without us), and never longer than
// kDrainSeconds (such a daemon prints without pause, or a consumer is stuck).
constexpr double kDrainSeconds = 1.0;
constexpr double kQuietSeconds = 0.1;
// How long typed keys may wait for room in the job's terminal before they
// are dropped (a job that does not read its input); the loop never blocks longer.
constexpr int kKeysWaitMs = 100;

}  // namespace

void Supervision::record_seen(const std::optional<evidence::ProcessSeen>& seen) {
  if (seen) journal_.append(*seen);
}

void Supervision::record_death(const std::optional<evidence::ProcessDied>& died) {
  if (!died) return;
  console_.flush();  // the last words before a death belong on disk with it
  journal_.append(*died);
  request_sync();
  if (died->time - last_death_sample_ >= kMinSecondsBetweenDeathSamples) {
    last_death_sample_ = died->time;
    take_sample();  // catches the cgroup's oom_kill counter right after the kill
  }
}

void Supervision::take_sample() {
  const double now = wall_clock_now();
  const auto live = tracker_.live_pids();
  auto sample = sampler_.sample(live, now);
  if (options_.probes) arm_usage_alarm(sample);
  // Before the sample is journaled: the stacks are asked for at once.
  auto gasp = options_.probes ? last_gasp_.consider(sample, live, now) : std::nullopt;
  journal_.append(std::move(sample));
  if (gasp) {
    journal_.append(std::move(*gasp));
    request_sync();  // a SIGKILL may be a moment away
  }
  for (auto& stacks : last_gasp_.collect_stacks(now)) journal_.append(std::move(stacks));
}

// Samples faster while memory is near its limit or stacks are awaited, so
// the last gasp comes before the kill, not after.
void Supervision::pace_sampling() {
  const double wanted = last_gasp_.interval(options_.sample_interval_s);
  if (wanted == sample_interval_) return;
  itimerspec period{};
  period.it_interval.tv_sec = static_cast<time_t>(wanted);
  period.it_interval.tv_nsec = static_cast<long>((wanted - std::floor(wanted)) * 1e9);
  period.it_value = period.it_interval;
  if (::timerfd_settime(timer_fd_.get(), 0, &period, nullptr) == 0) sample_interval_ = wanted;
}

// Once the job's cgroup and its limit are known (and again when either
// changes): the kernel then wakes the loop as memory nears the limit.
void Supervision::arm_usage_alarm(const evidence::MemorySample& sample) {
  const auto* cgroup = sampler_.cgroup();
  if (!epoll_.valid() || !cgroup || !sample.cgroup || !sample.cgroup->limit || !sample.cgroup->limit.value()) return;
  const auto limit = *sample.cgroup->limit.value();
  if (usage_alarm_ && usage_alarm_->cgroup_path() == cgroup->cgroup_path() && usage_alarm_->limit() == limit) return;
  if (usage_alarm_failed_ && !usage_alarm_) return;
  if (usage_alarm_) ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, usage_alarm_->fd(), nullptr);
  usage_alarm_.reset();
  auto alarm = UsageAlarm::arm(*cgroup, limit, {LastGasp::kNearThreshold, LastGasp::kThreshold});
  if (alarm && add_to_epoll(alarm->fd(), kUsageAlarm)) {
    usage_alarm_.emplace(std::move(alarm).value());
  } else if (!usage_alarm_failed_) {
    usage_alarm_failed_ = true;
    journal_.append(evidence::SupervisorNote{
        wall_clock_now(), "no wake-up as memory nears the cgroup's limit (the last gasp relies on faster sampling): " +
                              (alarm ? std::string("epoll_ctl failed") : alarm.missing().detail)});
  }
}

void Supervision::on_usage_alarm() {
  if (!usage_alarm_ || usage_alarm_->drain() == 0) return;
  take_sample();
  pace_sampling();
}

void Supervision::on_probe_socket() {
  if (!probe_socket_) return;
  for (const auto& datagram : probe_socket_->receive()) {
    auto marker = evidence::parse_probe_marker(datagram);
    if (auto* parsed = std::get_if<evidence::ProbeMarker>(&marker)) {
      journal_.append(std::move(*parsed));
    } else if (probe_datagrams_refused_++ == 0) {
      // The job's processes can send anything: said once, then counted.
      journal_.append(evidence::SupervisorNote{
          wall_clock_now(), "a datagram on the probe socket is not a marker: " + std::get<std::string>(marker)});
    }
  }
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
    bool was_relay = false;
    for (auto* relay : {&out_relay_, &err_relay_}) {
      if (*relay && (*relay)->relay_pid() == pid) {
        (*relay)->relay_ended();
        tracker_.forget_excluded(pid);
        was_relay = true;
      }
    }
    if (was_relay) continue;
    if (gpu_watch_ && gpu_watch_->pid() == pid) {
      gpu_watch_->ended(wait_status);
      continue;
    }
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
      if (pty_) copy_window_size(STDOUT_FILENO, pty_->master.get());
    } else {
      record_received(info, forward(sig, info.ssi_code));
    }
  }
}

bool Supervision::forward(int sig, int si_code) {
  if (job_status_ || !should_forward(sig, si_code, /*job_shares_our_terminal_group=*/!pty_)) return false;
  ::kill(job_pid_, sig);
  journal_.append(evidence::SupervisorNote{wall_clock_now(), fmt::format("forwarded {} to the job", evidence::signal_name(sig))});
  return true;
}

// Who sent ftdiag a signal, read at once: the sender may be gone in a moment
// (a scheduler's kill command), and ftdiag itself may be next. Synced at
// once, since a SIGKILL to ftdiag can follow the grace period.
void Supervision::record_received(const signalfd_siginfo& info, bool forwarded) {
  evidence::SignalReceived received{.time = wall_clock_now(),
                                    .signal = static_cast<int>(info.ssi_signo),
                                    .sender_pid = static_cast<int>(info.ssi_pid),
                                    .sender_uid = static_cast<int>(info.ssi_uid),
                                    .code = info.ssi_code,
                                    .forwarded = forwarded};
  if (received.sender_pid > 0) {
    received.sender_comm = read_comm(options_.roots, received.sender_pid);
    received.sender_command = read_command_line(options_.roots, received.sender_pid);
  }
  journal_.append_durable(received);
}

// The tracer prints a task's name from a cache (saved_cmdlines) filled when
// a task is switched out, keyed by pid and never cleared at an exit. A
// sender read before its next switch (a scheduler's `kill`, still running
// on another CPU) is printed "<...>", or by the name of an earlier process
// that had its pid. So the name comes from /proc while the sender lives
// (a zombie too); one that has been reaped since was switched out on its
// way out, and the cache, read again now, has its own name.
std::string Supervision::sender_name(const parse::SignalGenerated& s) const {
  if (s.sender_pid <= 0) return s.sender_comm;
  // In a pid namespace of ftdiag's own, /proc/PID would be another process.
  if (signal_trace_->pids_are_ours()) {
    if (std::string comm = read_comm(options_.roots, s.sender_pid); !comm.empty()) return comm;
  }
  if (std::string saved = signal_trace_->saved_comm(s.sender_pid); !saved.empty()) return saved;
  return s.sender_comm;
}

// Signals generated for the job's processes (and ftdiag): the tracepoint
// fires for the whole host; only those that concern the tree are kept.
void Supervision::on_signal_trace() {
  const double now = wall_clock_now();
  bool any = false;
  for (const auto& s : signal_trace_->read_available()) {
    if (!tracker_.may_concern(s.target_pid) && s.target_pid != started_.supervisor_pid) continue;
    const double time = signal_trace_->timestamps_monotonic() && started_.boot_time ? *started_.boot_time + s.timestamp : now;
    journal_.append(evidence::SignalSent{.time = time,
                                         .signal = s.signal,
                                         .target_pid = s.target_pid,
                                         .target_comm = s.target_comm,
                                         .sender_pid = s.sender_pid,
                                         .sender_comm = sender_name(s),
                                         .code = s.code,
                                         .result = s.result});
    any = true;
  }
  // A SIGKILL to the job may be followed by one to ftdiag: on disk at once.
  if (any) request_sync();
}

void Supervision::on_kernel_log() {
  const double now = wall_clock_now();
  const std::uint64_t lost = kernel_log_->drain([&](std::string_view record) {
    if (kernel_records_++ < kMaxKernelRecordsPerRun) journal_.append(evidence::KernelLogged{now, std::string(record)});
  });
  if (kernel_records_ > kMaxKernelRecordsPerRun && kernel_records_ - 1 == kMaxKernelRecordsPerRun) {
    journal_.append(evidence::SupervisorNote{now, fmt::format("the kernel logged over {} records during the run: the rest are not recorded",
                                                              kMaxKernelRecordsPerRun)});
  }
  if (lost) {
    kernel_records_lost_ += lost;
    journal_.append(evidence::SupervisorNote{now, fmt::format("{} kernel log record(s) were overwritten before they could be read", lost)});
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
  pace_sampling();
  console_.flush();
  if (ticks_ % kSyncEveryTicks == 0) request_sync();
}

void Supervision::on_stdin() {
  char buffer[4096];
  ssize_t n = ::read(STDIN_FILENO, buffer, sizeof buffer);
  if (n > 0 && pty_) {
    const auto size = static_cast<std::size_t>(n);
    const std::size_t written = write_to_terminal(pty_->master.get(), buffer, size, kKeysWaitMs);
    if (written < size) {
      journal_.append(evidence::SupervisorNote{
          wall_clock_now(), fmt::format("the job's terminal input was full: {} typed byte(s) dropped", size - written)});
    }
  } else if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN)) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, STDIN_FILENO, nullptr);
    relay_stdin_ = false;
  }
}

bool Supervision::output_settled(double now) const {
  if (now >= job_ended_at_ + kDrainSeconds) return true;
  for (const auto* relay : {&out_relay_, &err_relay_}) {
    if (!*relay) continue;
    if ((*relay)->is_open()) {
      // Still held by a process of the job: wait while output keeps coming.
      if (now - std::max(job_ended_at_, (*relay)->last_read_at()) < kQuietSeconds) return false;
    } else if ((*relay)->relay_running()) {
      return false;  // read to the end; writing the last of it out
    }
  }
  return true;
}

void Supervision::start_syncer() {
  // The only thread ftdiag starts, after every fork (fork_safety.h).
  try {
    syncer_ = std::make_unique<journal::BackgroundSync>(std::vector{journal_.sync_target(), console_.sync_target()});
    syncer_->request();
  } catch (const std::system_error& e) {
    // The records still reach the page cache at once, so they survive
    // ftdiag's own death; only a node crash could cost the last of them.
    journal_.append(evidence::SupervisorNote{
        wall_clock_now(), fmt::format("the journal is not synced to disk: cannot start its sync thread: {}", e.what())});
  }
}

void Supervision::request_sync() {
  if (syncer_) syncer_->request();
}

void Supervision::report_loss(const std::string& what) {
  lost_because_ = what;
  std::fprintf(stderr, "ftdiag: %s; waiting for the job without watching its tree\n", what.c_str());
  journal_.append_durable(evidence::SupervisorNote{wall_clock_now(), what + "; waiting for the job without watching its tree"});
}

void Supervision::wait_for_job_without_loop() {
  // Signals are still blocked: take them synchronously, so the job's end is
  // still mirrored and SIGTERM still reaches it.
  const sigset_t signals = supervised_signals(inherited_);
  while (!job_status_) {
    on_child_exits();
    if (job_status_) return;
    siginfo_t info{};
    const int sig = ::sigwaitinfo(&signals, &info);
    if (sig > 0) {
      if (sig != SIGCHLD && sig != SIGWINCH && sig != SIGPIPE) forward(sig, info.si_code);
      continue;
    }
    if (errno == EINTR) continue;
    lost_because_ += fmt::format("; sigwaitinfo: {}", std::strerror(errno));
    int wait_status = 0;
    pid_t got;
    do {
      got = ::waitpid(job_pid_, &wait_status, 0);
    } while (got < 0 && errno == EINTR);
    if (got != job_pid_) {
      lost_because_ += fmt::format("; waitpid: {}", std::strerror(errno));
      return;
    }
    job_status_ = ExitStatus::from_wait_status(wait_status);
    job_ended_at_ = wall_clock_now();
    record_death(tracker_.on_exit(job_pid_, *job_status_, "waitpid", job_ended_at_));
  }
}

void Supervision::event_loop() {
  epoll_event events[16];
  while (!job_status_ || !output_settled(wall_clock_now())) {
    int timeout_ms = job_status_ ? 20 : -1;
    int count = ::epoll_wait(epoll_.get(), events, 16, timeout_ms);
    if (count < 0 && errno != EINTR) {
      report_loss(fmt::format("the event loop failed (epoll_wait: {})", std::strerror(errno)));
      return;
    }
    for (int i = 0; i < count; ++i) {
      const double now = wall_clock_now();
      switch (events[i].data.u64) {
        case kSignals: on_signals(); break;
        case kTimer: on_tick(); break;
        case kNetlink: on_netlink(); break;
        case kRelayOut: out_relay_->pump(console_, now); break;
        case kRelayErr: err_relay_->pump(console_, now); break;
        case kStdin: on_stdin(); break;
        case kKernelLog: on_kernel_log(); break;
        case kSignalTrace: on_signal_trace(); break;
        case kProbeSocket: on_probe_socket(); break;
        case kUsageAlarm: on_usage_alarm(); break;
        case kGpuWatch: on_gpu_watch(); break;
        default: break;
      }
    }
  }
}

}  // namespace ftdiag::supervise
