// Asking the GPUs and their driver, through the GPU probe (probes/gpu): a
// process of its own under a deadline, because a broken driver install
// crashes or hangs inside cuInit, and that must become a fact, never
// ftdiag's crash or hang (docs/probes.md, "The GPU probe").
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "model/environment.h"
#include "parse/probes/gpu_probe_output.h"

namespace ftdiag::collect {

struct GpuProbeRequest {
  // The probe executable; absent: find_probe_file("ftdiag-gpu-probe").
  std::optional<std::filesystem::path> probe;
  // Variables set for the probe over ftdiag's own environment
  // (FTDIAG_LIBCUDA, FTDIAG_LIBNVML, CUDA_VISIBLE_DEVICES, …).
  std::map<std::string, std::string> environment;
  // cuInit on a machine with 8 GPUs can take seconds.
  std::chrono::milliseconds deadline{15000};
};

// Runs the probe and reads its inventory. Always returns: the probe not
// found (not_present), crashed (failed, naming the signal and the driver
// call it was in), hung (timed_out), or printing what is not an inventory
// (unparseable) is `probed` Missing with that reason. What the probe could
// not ask the driver is listed in `problems`.
model::GpuInventory probe_gpus(const GpuProbeRequest& request);

}  // namespace ftdiag::collect
