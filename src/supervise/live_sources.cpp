#include "supervise/live_sources.h"

#include <array>

#include "supervise/sources/gpu_watch.h"
#include "supervise/sources/heartbeat.h"
#include "supervise/sources/job_output.h"
#include "supervise/sources/kernel_log.h"
#include "supervise/sources/probes.h"
#include "supervise/sources/process_events.h"
#include "supervise/sources/received_signals.h"
#include "supervise/sources/save_watch.h"
#include "supervise/sources/sampling_timer.h"
#include "supervise/sources/signal_trace.h"
#include "supervise/sources/usage_alarm.h"

namespace ftdiag::supervise {

std::span<const SourceOpener> live_source_openers() {
  // The order is the order of opening, of draining after the job's end and
  // of closing. The signal trace comes first: it forks the instance's
  // cleaner while ftdiag has no thread (fork_safety.h).
  static constexpr std::array<SourceOpener, 11> kOpeners = {
      open_signal_trace,   open_process_events, open_probes,    open_kernel_log, open_received_signals,
      open_sampling_timer, open_heartbeat,      open_usage_alarm, open_gpu_watch, open_job_output,
      open_save_watch,
  };
  return kOpeners;
}

}  // namespace ftdiag::supervise
