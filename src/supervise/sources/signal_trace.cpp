#include "supervise/sources/signal_trace.h"

#include "base/clock.h"
#include "supervise/process_names.h"
#include "supervise/process_tracker.h"
#include "supervise/signal_trace.h"

namespace ftdiag::supervise {

namespace {

class SignalTraceSource final : public LiveSource {
 public:
  SignalTraceSource(SupervisedRun& run, SignalTrace trace) : run_(run), trace_(std::move(trace)) {}

  std::vector<int> descriptors() const override { return {trace_.fd()}; }
  void on_ready(int) override { read_signals(); }
  void drain() override { read_signals(); }

 private:
  // The tracepoint fires for the whole host; only the signals that concern
  // the tree are kept.
  void read_signals() {
    const double now = wall_clock_now();
    const auto& started = run_.started();
    bool any = false;
    for (const auto& s : trace_.read_available()) {
      if (!run_.tracker().may_concern(s.target_pid) && s.target_pid != started.supervisor_pid) continue;
      const double time = trace_.timestamps_monotonic() && started.boot_time ? *started.boot_time + s.timestamp : now;
      run_.record(evidence::SignalSent{.time = time,
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
    if (any) run_.request_sync();
  }

  // The tracer prints a task's name from a cache (saved_cmdlines) filled
  // when a task is switched out, keyed by pid and never cleared at an exit.
  // A sender read before its next switch (a scheduler's `kill`, still
  // running on another CPU) is printed "<...>", or by the name of an earlier
  // process that had its pid. So the name comes from /proc while the sender
  // lives (a zombie too); one that has been reaped since was switched out on
  // its way out, and the cache, read again now, has its own name.
  std::string sender_name(const parse::SignalGenerated& s) const {
    if (s.sender_pid <= 0) return s.sender_comm;
    // In a pid namespace of ftdiag's own, /proc/PID would be another process.
    if (trace_.pids_are_ours()) {
      if (std::string comm = process_comm(run_.options().roots, s.sender_pid); !comm.empty()) return comm;
    }
    if (std::string saved = trace_.saved_comm(s.sender_pid); !saved.empty()) return saved;
    return s.sender_comm;
  }

  SupervisedRun& run_;
  SignalTrace trace_;
};

}  // namespace

OpenedSource open_signal_trace(SourceSetup& setup) {
  auto trace = SignalTrace::open();
  if (!trace) {
    setup.mechanisms.emplace("signal-trace", trace.missing());
    return nullptr;
  }
  if (trace->cleaner_pid() > 0) setup.run.tracker().exclude(trace->cleaner_pid());
  setup.mechanisms.emplace("signal-trace", true);
  return std::make_unique<SignalTraceSource>(setup.run, std::move(trace).value());
}

}  // namespace ftdiag::supervise
