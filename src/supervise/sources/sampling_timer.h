// The sampler's clock: a timerfd that ticks at the sample interval (faster
// while memory is near its limit or stacks are awaited, last_gasp.h). Each
// tick samples the tree's memory, double-checks the tree against /proc, and
// flushes the console log; every few ticks the journal is synced.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

// Required: the memory curve is the run's backbone.
OpenedSource open_sampling_timer(SourceSetup& setup);

}  // namespace ftdiag::supervise
