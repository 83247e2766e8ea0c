#include <fcntl.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

#include "base/clock.h"
#include "parse/probes/gpu_probe_output.h"
#include "collect/host/oom_daemons.h"
#include "collect/helpers/probe_location.h"
#include "supervise/job_identity.h"
#include "supervise/probe_leftovers.h"
#include "supervise/signal_policy.h"
#include "supervise/spawn.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ConsoleStream;
using evidence::ExitStatus;

void Supervision::finish() {
  const double now = wall_clock_now();
  if (out_relay_) out_relay_->pump(console_, now);
  if (err_relay_) err_relay_->pump(console_, now);
  // The relays go on for what a process of the job still writes (a daemon
  // it left), without a copy for us (relay_process.h).
  if (out_relay_) out_relay_->close();
  if (err_relay_) err_relay_->close();
  if (netlink_) on_netlink();
  // The OOM killer's report can be logged after its victim's death was seen.
  if (kernel_log_) on_kernel_log();
  if (signal_trace_) on_signal_trace();
  on_child_exits();
  apply_scan();
  take_sample();
  on_probe_socket();
  for (auto& stacks : last_gasp_.collect_stacks(wall_clock_now(), /*final=*/true)) journal_.append(std::move(stacks));
  if (probe_datagrams_refused_ > 1) {
    journal_.append(evidence::SupervisorNote{now, fmt::format("{} datagrams on the probe socket were not markers",
                                                              probe_datagrams_refused_)});
  }
  if (auto still = tracker_.live_pids(); !still.empty()) {
    journal_.append(evidence::SupervisorNote{now, fmt::format("{} process(es) of the job tree still ran when the job ended: {}",
                                                              still.size(), fmt::join(still, ", "))});
  }
  finish_gpu_watch();
  // The stacks were read above; what the probes left empty holds nothing,
  // nor does the socket once the job is gone.
  remove_empty_probe_files(dir_.fd());
  probe_socket_.reset();
  syncer_.reset();  // joins the worker after its last sync (none when it could not start)
  console_.finish();
  journal_.append_durable(evidence::RunEnded{wall_clock_now(), *job_status_});
  if (raw_mode_) raw_mode_->restore();
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

void Supervision::start_gpu_watch() {
  if (!options_.gpu_watch) return;
  auto probe = collect::find_probe_file("ftdiag-gpu-probe");
  if (!probe) return;  // an install without the probe: the environment snapshot says so
  const auto interval_ms = std::max(100L, std::lround(options_.gpu_interval_s * 1000));
  auto started = SideProgram::start({probe.value().string(), "--watch", std::to_string(interval_ms)}, /*capture_output=*/true);
  if (!started) {
    journal_.append(evidence::SupervisorNote{wall_clock_now(), fmt::format("GPU memory is not sampled: {}", started.missing().detail)});
    return;
  }
  gpu_watch_.emplace(std::move(started).value());
  tracker_.exclude(gpu_watch_->pid());
  if (!add_to_epoll(gpu_watch_->output(), kGpuWatch)) {
    gpu_watch_->stop();
    tracker_.forget_excluded(gpu_watch_->pid());
    gpu_watch_.reset();
  }
}

void Supervision::on_gpu_watch() {
  if (!gpu_watch_ || gpu_watch_->output() < 0) return;
  char chunk[16384];
  bool ended = false;
  for (;;) {
    const ssize_t n = ::read(gpu_watch_->output(), chunk, sizeof chunk);
    if (n > 0) {
      gpu_watch_buffer_.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
    break;
  }
  std::size_t start = 0;
  for (std::size_t newline; (newline = gpu_watch_buffer_.find('\n', start)) != std::string::npos; start = newline + 1) {
    const std::string_view line(gpu_watch_buffer_.data() + start, newline - start);
    if (!gpu_inventory_seen_) {
      // The first line is the inventory; environment.json keeps it. No GPU
      // (or no NVML) to sample: nothing to watch.
      gpu_inventory_seen_ = true;
      auto inventory = parse::parse_gpu_inventory(line);
      if (!inventory || inventory->devices.empty()) ended = true;
      continue;
    }
    if (auto sample = parse::parse_gpu_sample_line(line)) journal_.append(std::move(*sample));
  }
  gpu_watch_buffer_.erase(0, start);
  // A line longer than any sample can be is not one: drop it rather than grow.
  if (gpu_watch_buffer_.size() > (1u << 20)) gpu_watch_buffer_.clear();
  if (ended) {
    ::epoll_ctl(epoll_.get(), EPOLL_CTL_DEL, gpu_watch_->output(), nullptr);
    gpu_watch_->close_output();
  }
}

void Supervision::finish_gpu_watch() {
  if (!gpu_watch_) return;
  on_gpu_watch();
  gpu_watch_->stop();
  tracker_.forget_excluded(gpu_watch_->pid());
}

std::variant<SupervisedJob, SupervisorFailure> Supervision::run() {
  // Blocked while ftdiag is still single-threaded, so every later thread
  // inherits the mask and only the signalfd takes these signals.
  const sigset_t mask = supervised_signals(inherited_);
  ::sigprocmask(SIG_BLOCK, &mask, &old_mask_);
  if (inherited_.is_ignored(SIGCHLD)) {
    // Ignored, SIGCHLD would make the kernel reap our children unseen; the
    // job still gets it ignored, as inherited.
    struct sigaction deflt {};
    deflt.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &deflt, nullptr);
  }

  journal_.tee_into(&live_);
  console_.set_observer(&console_summary_);
  prepare_mechanisms();
  started_.time = wall_clock_now();
  started_.journal_format = evidence::kJournalFormat;
  started_.ftdiag_version = FTDIAG_VERSION;
  started_.host = host_name();
  started_.rank = rank_from_environment();
  started_.argv = options_.argv;
  started_.cwd = current_directory();
  started_.supervisor_pid = ::getpid();
  started_.sample_interval_s = options_.sample_interval_s;
  started_.boot_time = boot_wall_time();
  started_.oom_daemons = collect::running_oom_daemons(options_.roots);
  started_.scheduler_job = scheduler_job_from_environment();
  started_.redaction = options_.redact ? "on" : "off";

  auto failure = open_event_sources(mask);
  if (!failure) failure = start_job();
  if (failure) {
    stop_relays();
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    journal_.append(started_);
    journal_.append(evidence::SupervisorNote{wall_clock_now(), failure->message});
    journal_.append_durable(evidence::RunEnded{wall_clock_now(), ExitStatus::exited(failure->exit_code)});
    return *failure;
  }
  started_.job_pid = job_pid_;
  started_.pseudo_terminal = pty_.has_value();
  journal_.append(started_);
  start_syncer();
  record_seen(tracker_.adopt(job_pid_, "spawn", wall_clock_now(), options_.argv));
  start_gpu_watch();
  sampler_.locate_cgroup_of(job_pid_);
  take_sample();

  event_loop();
  if (!job_status_) wait_for_job_without_loop();
  if (!job_status_) {
    const std::string message = "ftdiag: lost the job: its end could not be waited for (" + lost_because_ + ")";
    journal_.append_durable(evidence::SupervisorNote{wall_clock_now(), message});
    if (raw_mode_) raw_mode_->restore();
    return SupervisorFailure{kExitCannotSupervise, message, dir_.path()};
  }
  finish();
  journal_.tee_into(nullptr);
  console_.set_observer(nullptr);
  auto run = std::move(live_).finish(dir_.path().filename().string());
  run.console = std::move(console_summary_).finish();
  auto shared = dir_.share();
  return SupervisedJob{*job_status_, dir_.path(), shared ? std::optional(std::move(shared).value()) : std::nullopt,
                       std::move(run)};
}

std::variant<SupervisedJob, SupervisorFailure> supervise(const SupervisorOptions& options) {
  const std::string host = host_name();
  const auto rank = rank_from_environment();
  const auto job_dir = options.job_dir.empty() ? journal::default_job_directory(host, ::getpid()) : options.job_dir;
  auto dir = journal::RunDirectory::create(job_dir, journal::run_folder_name(host, rank, ::getpid()));
  if (!dir) return SupervisorFailure{kExitCannotSupervise, "ftdiag: cannot create the job directory: " + dir.missing().detail, {}};
  auto journal = dir->create_file(evidence::kJournalFileName);
  auto console = dir->create_file(evidence::kConsoleFileName);
  if (!journal || !console) {
    const auto& why = !journal ? journal.missing() : console.missing();
    return SupervisorFailure{kExitCannotSupervise, "ftdiag: cannot create the journal: " + why.detail, dir->path()};
  }
  // A full disk must never disturb the job: the writers record it and say it once, here.
  auto failures = std::make_shared<journal::WriteFailures>(dir->fd(), [](std::string_view m) { fmt::print(stderr, "ftdiag: {}\n", m); });
  journal::JournalWriter journal_writer(std::move(journal).value(), failures);
  if (!options.redact) journal_writer.write_values_as_given();
  Supervision supervision(options, std::move(dir).value(), std::move(journal_writer),
                          journal::ConsoleLogWriter(std::move(console).value(), failures));
  return supervision.run();
}

}  // namespace ftdiag::supervise
