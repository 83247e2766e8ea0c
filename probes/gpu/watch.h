// --watch: GPU memory in use, device by device and process by process, one
// JSON line per interval, from NVML alone (no cuInit for a sample). Runs
// until its parent (ftdiag) dies or stdout closes.
#pragma once

#include <sys/types.h>

#include "inventory.h"
#include "nvml_query.h"

namespace gpu_probe {

// Samples the inventory's devices that NVML knows (by their inventory index)
// every `interval_ms`, the first at once. Returns when `parent` is no longer
// the parent, or stdout fails.
void watch(const Inventory& inventory, const NvmlSession& nvml, long interval_ms, pid_t parent);

}  // namespace gpu_probe
