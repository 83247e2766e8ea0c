// GPU memory per device and process, sampled beside the job by the GPU
// probe's --watch mode (docs/probes.md) at its own rate: NVML calls cost
// milliseconds each, and GPU memory moves slower than host memory's spikes.
#pragma once

#include "supervise/live_source.h"

namespace ftdiag::supervise {

OpenedSource open_gpu_watch(SourceSetup& setup);

}  // namespace ftdiag::supervise
