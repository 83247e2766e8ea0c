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
  journal_.tee_into(nullptr);
  console_.set_observer(nullptr);
  auto run = std::move(live_).finish(dir_.path().filename().string());
  run.console = std::move(console_summary_).finish();
  return SupervisedJob{*job_status_, dir_.path(), std::move(run)};
}

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
