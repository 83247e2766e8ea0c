// `ftdiag run`: the run of one supervision, from the run record to the end
// record, and the run folder it is written into.
#include <unistd.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/clock.h"
#include "collect/host/oom_daemons.h"
#include "supervise/job_identity.h"
#include "supervise/signal_policy.h"
#include "supervise/supervision.h"

namespace ftdiag::supervise {

using evidence::ExitStatus;

void Supervision::finish() {
  // What the sources still hold: the job's last output, exits and kernel
  // records that came after the job's own end (an OOM report can follow the
  // death it explains), the last markers.
  for (auto& source : sources_) source->drain();
  reap_children();
  scan_tree();
  take_sample();
  const double now = wall_clock_now();
  for (auto& stacks : last_gasp_.collect_stacks(now, /*final=*/true)) journal_.append(std::move(stacks));
  if (auto still = tracker_.live_pids(); !still.empty()) {
    note(fmt::format("{} process(es) of the job tree still ran when the job ended: {}", still.size(), fmt::join(still, ", ")));
  }
  close_sources();
  syncer_.reset();  // joins the worker after its last sync (none when it could not start)
  console_.finish();
  journal_.append_durable(evidence::RunEnded{wall_clock_now(), *job_status_});
  ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
}

void Supervision::close_sources() {
  for (auto& source : sources_) source->close();
}

std::variant<SupervisedJob, SupervisorFailure> Supervision::run() {
  // Blocked while ftdiag is still single-threaded, so every later thread
  // inherits the mask and only the signalfd takes these signals.
  supervised_signals_ = supervised_signals(inherited_);
  ::sigprocmask(SIG_BLOCK, &supervised_signals_, &old_mask_);
  if (inherited_.is_ignored(SIGCHLD)) {
    // Ignored, SIGCHLD would make the kernel reap our children unseen; the
    // job still gets it ignored, as inherited.
    struct sigaction deflt {};
    deflt.sa_handler = SIG_DFL;
    ::sigaction(SIGCHLD, &deflt, nullptr);
  }

  journal_.tee_into(&live_);
  console_.set_observer(&console_summary_);
  auto failure = open_sources();
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
  started_.node = node_name_from_environment();
  started_.placement = placement_from_environment();
  started_.heartbeat_interval_s = options_.heartbeat_interval_s;

  if (!failure) failure = start_job();
  if (failure) {
    for (auto& source : sources_) source->job_not_started();
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    journal_.append(started_);
    note(failure->message);
    journal_.append_durable(evidence::RunEnded{wall_clock_now(), ExitStatus::exited(failure->exit_code)});
    return *failure;
  }
  started_.job_pid = job_pid_;
  journal_.append(started_);
  start_syncer();
  record_seen(tracker_.adopt(job_pid_, "spawn", wall_clock_now(), options_.argv));
  for (auto& source : sources_) source->job_started();
  if (options_.job_started) options_.job_started();
  sampler_.locate_cgroup_of(job_pid_);
  take_sample();

  event_loop();
  if (!job_status_) wait_for_job_without_loop();
  if (!job_status_) {
    const std::string message = "ftdiag: lost the job: its end could not be waited for (" + lost_because_ + ")";
    journal_.append_durable(evidence::SupervisorNote{wall_clock_now(), message});
    close_sources();
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
  // The node's name as its scheduler knows it names the run's folder, so
  // each node of a job writes only its own folders in a shared job directory.
  std::string node = node_name_from_environment();
  if (node.empty()) node = host_name();
  const auto rank = rank_from_environment();
  const auto job_dir = options.job_dir.empty() ? journal::default_job_directory(node, ::getpid()) : options.job_dir;
  auto dir = journal::RunDirectory::create(job_dir, journal::run_folder_name(node, rank, ::getpid()));
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
