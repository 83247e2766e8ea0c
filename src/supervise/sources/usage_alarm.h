// A wake-up from the kernel as the job's memory cgroup nears its limit
// (cgroup v1 usage thresholds, usage_alarm.h): the last gasp then samples
// at once rather than at the next tick. Armed once the cgroup and its limit
// are known, and again when either changes.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_usage_alarm(SourceSetup& setup);

}  // namespace ftdiag::supervise
