// The kernel's signal:signal_generate tracepoint, as tracefs prints it in
// trace_pipe: who sent a signal to whom, with what si_code, and whether it
// was delivered. It names the sender that no exit status can: the scheduler
// that sent SIGTERM, the launcher that sent SIGKILL, or the kernel itself.
//
//   <task>-<pid> [(<tgid>)] [<cpu>] [<flags>] <secs>: signal_generate: sig=9 errno=0 code=0 comm=sleep pid=4242 grp=1 res=0
//
// The task field is right-aligned to 16 columns and a comm may hold spaces
// and dashes, so the sender's pid follows the LAST dash of the header; the
// tgid column appears with the option record-tgid, the flags column only
// with irq-info (and has 4 or 5 characters by kernel version). The target's
// comm runs from "comm=" to the last " pid=" (include/trace/events/signal.h,
// kernel/trace/trace_output.c: trace_print_context).
//
// Pure functions over text; never throw.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ftdiag::parse {

struct SignalGenerated {
  // The task running when the signal was generated: the sender of a kill(),
  // the faulting thread of a SIGSEGV, the allocating task when the OOM
  // killer sends SIGKILL. Its comm comes from the tracer's small cache of
  // names (saved_cmdlines): empty when the tracer had none ("<...>"), and
  // an earlier process's name when the sender has not been switched out
  // since the record was made and its pid was used before.
  std::string sender_comm;
  int sender_pid = 0;        // a thread id
  std::optional<int> cpu;    // absent when the line has no cpu column
  double timestamp = 0;      // seconds on the instance's trace clock
  int signal = 0;
  int error = 0;             // si_errno
  int code = 0;              // si_code: 0 SI_USER (kill), -6 SI_TKILL, 0x80 SI_KERNEL, > 0 from the kernel
  std::string target_comm;   // the target's comm at that moment
  int target_pid = 0;        // a thread id (the thread group leader for kill())
  bool group = false;        // sent to the whole thread group
  int result = 0;            // what became of it: see signal_result_name

  bool operator==(const SignalGenerated&) const = default;
};

// One trace_pipe line (a trailing newline is allowed); nullopt when it is not
// a signal_generate record in the default layout (the latency-format and
// raw/hex/bin layouts, or a line without the context columns, are not).
std::optional<SignalGenerated> parse_signal_generate(std::string_view trace_pipe_line);

// trace_pipe's "CPU:3 [LOST 42 EVENTS]": records the ring buffer dropped.
std::optional<std::uint64_t> parse_lost_events(std::string_view trace_pipe_line);

// The comm tracefs's saved_cmdlines gives `pid` ("<pid> <comm>" a line,
// kernel/trace/trace.c: saved_cmdlines_show; a comm may hold spaces);
// nullopt when it lists no such pid. A sender printed "<...>" in trace_pipe
// had not been switched out since its record was made: its name is saved at
// that switch, which can come after the record was read.
std::optional<std::string> find_saved_comm(std::string_view saved_cmdlines, int pid);

// The kernel's enum trace_sig_result: "delivered" (0), "ignored" (1),
// "already-pending" (2), "overflow" (3: the signal queue was full),
// "lost-info" (4: delivered without its siginfo); "unknown" otherwise.
std::string_view signal_result_name(int result);

// Whether the kernel generated the signal itself (SI_KERNEL, or a fault's
// positive si_code) rather than a process through kill(), tgkill() or
// sigqueue() (si_code <= 0; siginfo.h: SI_FROMKERNEL).
inline bool generated_by_kernel(int code) { return code > 0; }

}  // namespace ftdiag::parse
