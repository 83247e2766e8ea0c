// One way of watching a job while it runs, and what it may use of the run.
//
// Every live source (received signals, the sampler's timer, the process
// connector, the kernel log, the signal tracepoint, the probes' socket, the
// usage alarm, the GPU watch, the job's output and keys) is a LiveSource:
// it owns its descriptors, the event loop calls it when one is ready, and it
// records what it learns through the SupervisedRun it was opened with. The
// supervision knows none of them by name: they are opened from the list in
// live_sources.cpp, in its order (docs/writing-a-source.md).
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "base/fact.h"
#include "journal/console_log.h"
#include "journal/job_directory.h"
#include "evidence/records.h"
#include "supervise/supervisor.h"

namespace ftdiag::supervise {

class EventLoop;
class MemorySampler;
class ProcessTracker;
struct SpawnRequest;

class LiveSource {
 public:
  virtual ~LiveSource() = default;

  // The descriptors the loop waits on from the start (a source may also
  // watch others later, through SupervisedRun::loop()).
  virtual std::vector<int> descriptors() const { return {}; }
  // `fd` is readable, or its other end closed.
  virtual void on_ready(int fd) = 0;

  // Before the job is started: what its processes get (the probes'
  // environment, the job's output descriptors) and what the run record says
  // of it. A failure stops the supervision before the job starts.
  virtual std::optional<SupervisorFailure> prepare_job(SpawnRequest& /*request*/, evidence::RunStarted& /*started*/) {
    return std::nullopt;
  }
  // The job runs: sources that run beside it start here.
  virtual void job_started() {}
  // The job could not be started: stop what was started for it.
  virtual void job_not_started() {}
  // The terminal ftdiag runs in changed its size (SIGWINCH).
  virtual void terminal_resized() {}
  // A child of ftdiag ended. True when it was this source's own helper
  // process (a relay, the GPU watch), so it is not taken for the job's.
  virtual bool claims_exit(pid_t /*pid*/, int /*wait_status*/) { return false; }
  // A memory sample was journaled (the timer re-paces, the alarm re-arms).
  virtual void on_sample(const evidence::MemorySample& /*sample*/) {}
  // After the job's end: false while the job's output still passes through
  // this source, so the loop goes on until every source has settled.
  virtual bool settled(double /*now*/, double /*job_ended_at*/) const { return true; }

  // After the job's end and the loop: read what is left (an OOM report can
  // follow the death it explains). The last sample is taken after this.
  virtual void drain() {}
  // Last of all, after the final sample and stacks: stop helper processes,
  // remove what is no longer needed.
  virtual void close() {}
};

// What a live source may use of the run it watches; the supervision
// implements it. Records go to the journal (and, through it, to the live
// fold of the run); nothing else of the supervision is reachable.
class SupervisedRun {
 public:
  virtual const SupervisorOptions& options() const = 0;
  // The run record, complete once the job has started (pids, boot time).
  virtual const evidence::RunStarted& started() const = 0;
  virtual const journal::RunDirectory& run_directory() const = 0;
  virtual EventLoop& loop() = 0;
  virtual ProcessTracker& tracker() = 0;
  virtual MemorySampler& sampler() = 0;
  virtual journal::ConsoleLogWriter& console() = 0;

  virtual void record(const evidence::JournalRecord& record) = 0;
  // Written and synced at once: ftdiag itself may be killed next.
  virtual void record_durable(const evidence::JournalRecord& record) = 0;
  // A supervisor note, timed now.
  virtual void note(std::string text) = 0;
  // Asks the sync thread to put the journal on disk soon.
  virtual void request_sync() = 0;

  virtual void record_seen(const std::optional<evidence::ProcessSeen>& seen) = 0;
  virtual void record_death(const std::optional<evidence::ProcessDied>& died) = 0;
  // Reads the tree's memory now, journals it and tells every source.
  virtual void take_sample() = 0;
  // The interval samples are wanted at now (faster near the memory limit).
  virtual double wanted_sample_interval() const = 0;
  // Compares the tree with /proc (a source that lost events asks for it).
  virtual void scan_tree() = 0;
  // Reaps every ended child of ftdiag (on SIGCHLD).
  virtual void reap_children() = 0;
  // Passes a signal ftdiag received on to the job; false when it is not.
  virtual bool forward_to_job(int signal, int si_code) = 0;
  // The terminal ftdiag runs in changed its size.
  virtual void terminal_resized() = 0;

  // The training phase the job's console marks now (console_summary.h);
  // nullptr before any line marked one.
  virtual const evidence::PhaseStretch* console_phase() const = 0;

  virtual pid_t job_pid() const = 0;
  virtual bool job_ended() const = 0;

 protected:
  ~SupervisedRun() = default;
};

// What a source's opener returns: the source; nullptr when it is not
// available here (its mechanisms say why); or why the job cannot be
// supervised at all without it.
using OpenedSource = std::variant<std::unique_ptr<LiveSource>, SupervisorFailure>;

// What an opener gets: the run, and the run record's mechanisms, where it
// says for each way of watching that it works (true) or why not.
struct SourceSetup {
  SupervisedRun& run;
  std::map<std::string, Fact<bool>>& mechanisms;
  // The signals the supervision takes through a signalfd (blocked already).
  const sigset_t& supervised_signals;
};

// "ftdiag: cannot WHAT: CALL: <errno with remedy>", with the run folder.
SupervisorFailure cannot_supervise(const char* what, const char* call, int error, const SupervisedRun& run);

}  // namespace ftdiag::supervise
