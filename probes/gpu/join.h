// One inventory out of what CUDA and NVML each said: CUDA's devices, in
// CUDA's order, each completed with what NVML knows of the same GPU (matched
// by UUID, else PCI address); NVML's devices alone when CUDA could not list
// any.
#pragma once

#include <string>
#include <vector>

#include "cuda_query.h"
#include "inventory.h"
#include "nvml_query.h"

namespace gpu_probe {

// `nvml` is null when NVML could not be opened. `problems` are those found
// so far; joining may add more.
Inventory join_findings(CudaFindings cuda, const NvmlSession* nvml, std::vector<std::string> problems);

}  // namespace gpu_probe
