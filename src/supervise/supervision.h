// Internal to `ftdiag run`: one supervision of one job, from the start of
// the job to the end record. supervisor.cpp drives it; its setup lives in
// supervision_start.cpp, its event handlers in supervision_events.cpp.
#pragma once

#include <signal.h>
#include <sys/signalfd.h>

#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "journal/background_sync.h"
#include "journal/console_log.h"
#include "evidence/console_summary.h"
#include "journal/job_directory.h"
#include "journal/journal_writer.h"
#include "evidence/run_builder.h"
#include "supervise/inherited_signals.h"
#include "collect/host/kernel_log_reader.h"
#include "supervise/side_program.h"
#include "supervise/signal_trace.h"
#include "supervise/last_gasp.h"
#include "supervise/memory_sampler.h"
#include "supervise/output_relay.h"
#include "supervise/probe_environment.h"
#include "supervise/probe_socket.h"
#include "supervise/proc_connector.h"
#include "supervise/process_tracker.h"
#include "supervise/supervisor.h"
#include "supervise/terminal.h"
#include "supervise/usage_alarm.h"

namespace ftdiag::supervise {

// What woke the event loop (epoll_event.data).
enum EventSource : std::uint64_t { kSignals = 1, kTimer, kNetlink, kRelayOut, kRelayErr, kStdin, kKernelLog, kSignalTrace, kProbeSocket, kUsageAlarm, kGpuWatch };

// Single-threaded apart from the journal syncer: every handler runs on the
// epoll loop.
class Supervision {
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
        last_gasp_(dir_.fd(), options.roots) {}

  std::variant<SupervisedJob, SupervisorFailure> run();

 private:
  void prepare_mechanisms();
  std::optional<SupervisorFailure> start_job();
  std::optional<SupervisorFailure> open_event_sources(const sigset_t& signals);
  std::optional<SupervisorFailure> start_relay(int source, int destination, evidence::ConsoleStream stream,
                                               EventSource event, std::optional<OutputRelay>& relay);
  void stop_relays();
  void start_syncer();
  void request_sync();
  void event_loop();
  bool output_settled(double now) const;
  void wait_for_job_without_loop();
  void report_loss(const std::string& what);
  bool add_to_epoll(int fd, EventSource source);
  void on_signals();
  bool forward(int signal, int si_code);
  void record_received(const signalfd_siginfo& info, bool forwarded);
  void on_kernel_log();
  void on_signal_trace();
  std::string sender_name(const parse::SignalGenerated& s) const;
  void on_probe_socket();
  void on_usage_alarm();
  void arm_usage_alarm(const evidence::MemorySample& sample);
  void prepare_probes();
  void pace_sampling();
  void on_child_exits();
  void on_tick();
  void on_netlink();
  void on_stdin();
  void record_seen(const std::optional<evidence::ProcessSeen>& seen);
  void record_death(const std::optional<evidence::ProcessDied>& died);
  void apply_scan();
  void take_sample();
  void finish();
  void start_gpu_watch();
  void on_gpu_watch();
  void finish_gpu_watch();

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

  std::optional<ProcConnector> netlink_;
  std::optional<collect::KernelLogReader> kernel_log_;
  std::optional<SignalTrace> signal_trace_;
  ProbeFiles probe_files_;
  std::optional<ProbeSocket> probe_socket_;
  std::optional<UsageAlarm> usage_alarm_;
  bool usage_alarm_failed_ = false;  // said once
  std::uint64_t probe_datagrams_refused_ = 0;
  double sample_interval_ = 0;  // as the timer is armed now
  std::uint64_t kernel_records_ = 0;
  std::uint64_t kernel_records_lost_ = 0;
  bool netlink_lost_events_ = false;
  UniqueFd epoll_;
  UniqueFd signal_fd_;
  UniqueFd timer_fd_;
  sigset_t old_mask_{};
  std::optional<PseudoTerminal> pty_;
  std::unique_ptr<RawModeGuard> raw_mode_;
  std::optional<OutputRelay> out_relay_;
  std::optional<OutputRelay> err_relay_;
  std::optional<SideProgram> gpu_watch_;
  std::string gpu_watch_buffer_;   // a line not yet ended
  bool gpu_inventory_seen_ = false;
  bool relay_stdin_ = false;
  std::optional<std::string> original_oom_score_adj_;

  pid_t job_pid_ = -1;
  std::string lost_because_;  // why the event loop, then the plain wait, failed
  std::optional<evidence::ExitStatus> job_status_;
  double job_ended_at_ = 0;
  double last_death_sample_ = 0;
  std::uint64_t ticks_ = 0;
};

}  // namespace ftdiag::supervise
