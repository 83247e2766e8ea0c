// The kernel's records from the job's start (/dev/kmsg), journaled raw and
// parsed when the run is built: OOM kills, segfault lines, NVIDIA Xids. Read
// once more after the job's end, since an OOM report can follow the death.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_kernel_log(SourceSetup& setup);

}  // namespace ftdiag::supervise
