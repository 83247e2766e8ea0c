// Forks, execs and exits of the job's processes as they happen, from the
// kernel's process connector (proc_connector.h). Without it the tree is
// known only from /proc scans at each tick.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_process_events(SourceSetup& setup);

}  // namespace ftdiag::supervise
