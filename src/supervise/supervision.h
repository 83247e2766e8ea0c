// Internal to `ftdiag run`: one supervision of one job, from the start of
// the job to the end record. It owns the journal, the process tracker, the
// memory sampler and the event loop; every way of watching the job is a live
// source (live_source.h) opened from live_sources.cpp, which it knows only
// through that interface. Its setup lives in supervision_start.cpp, the loop
// and the job's end in supervision_events.cpp, the run in supervisor.cpp.
#pragma once

#include <signal.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "journal/background_sync.h"
#include "journal/console_log.h"
#include "evidence/console_summary.h"
#include "journal/job_directory.h"
#include "journal/journal_writer.h"
#include "evidence/run_builder.h"
#include "supervise/event_loop.h"
#include "supervise/inherited_signals.h"
#include "supervise/last_gasp.h"
#include "supervise/live_source.h"
#include "supervise/memory_sampler.h"
#include "supervise/process_tracker.h"
#include "supervise/supervisor.h"

namespace ftdiag::supervise {

// Single-threaded apart from the journal syncer: every source is called on
// the epoll loop.
class Supervision final : public SupervisedRun {
 public:
  Supervision(const SupervisorOptions& options, journal::RunDirectory dir, journal::JournalWriter journal,
              journal::ConsoleLogWriter console)
      : options_(options),
        inherited_(InheritedSignals::capture()),
        dir_(std::move(dir)),
        journal_(std::move(journal)),
        console_(std::move(console)),
        console_summary_(options.phases, options.line_events),
        tracker_(options.roots, ::getpid()),
        sampler_(options.roots),
        last_gasp_(dir_.fd(), options.roots) {
    // ftdiag's own (the environment's reader): neither it nor what it starts is the job's.
    for (const pid_t pid : options.own_children) tracker_.exclude(pid);
  }

  std::variant<SupervisedJob, SupervisorFailure> run();

  // SupervisedRun: what the live sources may use.
  const SupervisorOptions& options() const override { return options_; }
  const evidence::RunStarted& started() const override { return started_; }
  const journal::RunDirectory& run_directory() const override { return dir_; }
  EventLoop& loop() override { return *loop_; }
  ProcessTracker& tracker() override { return tracker_; }
  MemorySampler& sampler() override { return sampler_; }
  journal::ConsoleLogWriter& console() override { return console_; }
  void record(const evidence::JournalRecord& record) override { journal_.append(record); }
  void record_durable(const evidence::JournalRecord& record) override { journal_.append_durable(record); }
  void note(std::string text) override;
  void request_sync() override;
  void record_seen(const std::optional<evidence::ProcessSeen>& seen) override;
  void record_death(const std::optional<evidence::ProcessDied>& died) override;
  void take_sample() override;
  double wanted_sample_interval() const override;
  void scan_tree() override;
  void reap_children() override;
  bool forward_to_job(int signal, int si_code) override;
  void terminal_resized() override;
  const evidence::PhaseStretch* console_phase() const override { return console_summary_.current_phase(); }
  pid_t job_pid() const override { return job_pid_; }
  bool job_ended() const override { return job_status_.has_value(); }

 private:
  std::optional<SupervisorFailure> open_sources();
  void protect_from_oom_killer();
  std::optional<SupervisorFailure> start_job();
  void start_syncer();
  void event_loop();
  bool sources_settled(double now) const;
  void wait_for_job_without_loop();
  void report_loss(const std::string& what);
  void finish();
  void close_sources();

  const SupervisorOptions& options_;
  // The signal state ftdiag started with, for the job (spawn.h) and for the
  // choice of signals to forward (signal_policy.h). Captured first.
  InheritedSignals inherited_;
  journal::RunDirectory dir_;
  journal::JournalWriter journal_;
  journal::ConsoleLogWriter console_;
  evidence::ConsoleSummary console_summary_;  // fed each console line as it is logged
  ProcessTracker tracker_;
  MemorySampler sampler_;
  LastGasp last_gasp_;
  evidence::RunStarted started_;
  // Every journaled record is folded here as it is written, so the verdict
  // at the end needs no read-back of the journal.
  evidence::RunBuilder live_;
  std::unique_ptr<journal::BackgroundSync> syncer_;  // started once the job is forked

  std::optional<EventLoop> loop_;
  std::vector<std::unique_ptr<LiveSource>> sources_;  // in the order of live_sources.cpp
  sigset_t supervised_signals_{};
  sigset_t old_mask_{};
  std::optional<std::string> original_oom_score_adj_;

  pid_t job_pid_ = -1;
  std::string lost_because_;  // why the event loop, then the plain wait, failed
  std::optional<evidence::ExitStatus> job_status_;
  double job_ended_at_ = 0;
  double last_death_sample_ = 0;
};

}  // namespace ftdiag::supervise
