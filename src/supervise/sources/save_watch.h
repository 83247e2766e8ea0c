// The forecast of the job's first checkpoint save, and the warning before
// it when it will not fit (docs/memory-model.md, "Before the save"). Once
// the job's console shows training and its memory stands still (the
// optimizer's states appear at the first step), the memory it holds is the
// ranks' measured baseline; the forecaster (SupervisorOptions::
// save_forecaster) puts the save's copies on top of it. The first forecast
// is journaled (a `forecast` record); one that does not fit is printed on
// stderr and journaled at once, before the save begins. Memory that keeps
// growing is forecast again, until the first save begins.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_save_watch(SourceSetup& setup);

}  // namespace ftdiag::supervise
