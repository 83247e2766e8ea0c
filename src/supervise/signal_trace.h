// Who sent each fatal signal: the kernel's signal:signal_generate tracepoint,
// read live from a private tracefs instance.
//
// An exit status says "killed by SIGKILL"; this says "SIGKILL to pid 4242
// from pid 977 (slurmstepd)", or from the kernel (the OOM killer, a fault).
// The tracepoint fires for every signal generated on the host; a filter in
// the kernel keeps the fatal ones we follow, so the job pays nothing it would
// notice and ftdiag reads only a few records. See docs/signal-senders.md.
//
// Needs root: CAP_SYS_ADMIN to mount tracefs and create an instance. The
// instance (instances/ftdiag-<pid>) is ftdiag's own: its own buffer, clock,
// filter and trace_pipe, so other tracers (perf, trace-cmd, bpftrace) are
// never disturbed, and reading it consumes nobody else's records.
#pragma once

#include <signal.h>
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/fact.h"
#include "parse/kernel/trace_signal.h"
#include "supervise/tracefs.h"

namespace ftdiag::supervise {

struct SignalTraceOptions {
  // The signals to record (the kernel's filter); empty: every signal.
  std::vector<int> signals = {SIGKILL, SIGTERM, SIGINT, SIGHUP, SIGABRT, SIGSEGV, SIGBUS};
  TracefsLocations tracefs;
  // The instance's name; empty: "ftdiag-<pid>", the form stale-instance
  // removal recognises.
  std::string instance_name;
  // Ring buffer per CPU. A record takes about 64 bytes: 64 KiB holds about a
  // thousand per CPU between two reads, where a job's teardown sends tens.
  // (mkdir gives a new instance the default, about 1.4 MiB per CPU, for the
  // moment until this is written.)
  int buffer_kb_per_cpu = 64;
  // Fork a process that removes the instance if this one dies without
  // doing it (trace_instance_cleaner.h).
  bool cleaner = true;
};

class SignalTrace {
 public:
  // Finds or mounts tracefs, removes instances of dead ftdiag processes,
  // creates the instance, forks its cleaner, sets the clock (mono), the
  // buffer, the filter, enables the event and opens trace_pipe non-blocking.
  // Never throws. Missing, with what to do: permission_denied without root
  // ("needs root (CAP_SYS_ADMIN) to create a tracefs instance"), unsupported
  // when the kernel lacks tracefs or the tracepoint, failed otherwise. On
  // failure nothing is left behind.
  static Fact<SignalTrace> open(const SignalTraceOptions& options = {});

  SignalTrace(SignalTrace&&) noexcept;
  SignalTrace& operator=(SignalTrace&&) noexcept;
  SignalTrace(const SignalTrace&) = delete;
  SignalTrace& operator=(const SignalTrace&) = delete;
  // Disables the event, closes trace_pipe, removes the instance, unmounts
  // tracefs if open() mounted it, and dismisses the cleaner.
  ~SignalTrace();

  // trace_pipe, O_NONBLOCK and O_CLOEXEC, for epoll (EPOLLIN: records wait);
  // -1 on a moved-from object.
  int fd() const;

  // Every record that can be read now without blocking, in order (at most
  // about 1 MiB of text per call, so a flood cannot hold up an event loop;
  // level-triggered epoll reports the rest). A line cut by the read is
  // completed by the next call. Lines that are not records are counted.
  std::vector<parse::SignalGenerated> read_available();

  // Records' timestamps are on CLOCK_MONOTONIC (trace_clock "mono", Linux
  // 4.1+); false when the kernel refused it and they are on "local", a clock
  // of its own per CPU that cannot be turned into wall time.
  bool timestamps_monotonic() const;
  // The records' pids (the kernel's global ones) are this process's own:
  // it runs in the initial pid namespace, so /proc/PID is the same process.
  bool pids_are_ours() const;
  // Records the ring buffer dropped before they were read (trace_pipe's
  // "CPU:N [LOST M EVENTS]").
  std::uint64_t lost_records() const;
  // Lines that were neither a record nor a loss report.
  std::uint64_t unparsed_lines() const;
  // The name the tracer saved for `pid` (tracefs's saved_cmdlines), empty
  // when it has none: for a record whose sender was printed "<...>".
  std::string saved_comm(int pid) const;
  // The instance directory, for the run record.
  const std::string& instance_path() const;
  // The cleaner process (a child of this one, not part of the job), or -1.
  pid_t cleaner_pid() const;

 private:
  struct Instance;
  explicit SignalTrace(std::unique_ptr<Instance> instance);

  std::unique_ptr<Instance> instance_;
};

}  // namespace ftdiag::supervise
