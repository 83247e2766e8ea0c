// What NVML says: the driver's version, each GPU's identity, memory, ECC
// counters and the processes using it. NVML sees every GPU of the machine
// (it ignores CUDA_VISIBLE_DEVICES) and needs no cuInit, which is why
// --watch uses it alone.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "driver_api.h"
#include "inventory.h"
#include "library.h"

namespace gpu_probe {

// A loaded and initialised NVML, and its devices' handles in NVML's order.
struct NvmlSession {
  Library library;
  NvmlApi api;
  std::string driver_version;
  std::vector<nvmlDevice_t> handles;  // null where nvmlDeviceGetHandleByIndex_v2 failed
};

// Loads $FTDIAG_LIBNVML or libnvidia-ml.so.1 and initialises it; nullopt,
// with the reason in `problems`, when either fails.
std::optional<NvmlSession> open_nvml(std::vector<std::string>& problems);

// Every device NVML lists, `index` and `nvml_index` both NVML's index.
std::vector<Device> describe_nvml_devices(const NvmlSession& nvml, std::vector<std::string>& problems);

struct DeviceUsage {
  std::optional<unsigned long long> memory_used_bytes;
  std::optional<unsigned long long> memory_total_bytes;
  std::vector<ProcessUse> processes;
};

// The memory in use on one device and by whom. Failures go to `problems`
// when given (the inventory), and are left out of a --watch sample.
DeviceUsage read_usage(const NvmlSession& nvml, int nvml_index, std::vector<std::string>* problems);

void close_nvml(const NvmlSession& nvml);

}  // namespace gpu_probe
