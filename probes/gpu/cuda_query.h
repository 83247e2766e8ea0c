// What libcuda says, without ever creating a context: the CUDA version the
// driver supports, whether cuInit works, and the devices it shows (those
// CUDA_VISIBLE_DEVICES leaves, in CUDA's order, as a job would see them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory.h"

namespace gpu_probe {

struct CudaFindings {
  std::string path;  // the library loaded; empty when none
  std::optional<int> driver_version;
  std::optional<int> init_result;
  bool listed = false;  // cuInit and cuDeviceGetCount worked: `devices` is CUDA's list
  std::vector<Device> devices;
};

// Loads $FTDIAG_LIBCUDA or libcuda.so.1; what fails goes to `problems`.
// A cuInit that crashes or hangs takes the probe with it: ftdiag reports
// that (it runs the probe in a process of its own, with a deadline).
CudaFindings query_cuda(std::vector<std::string>& problems);

}  // namespace gpu_probe
