// What the probe learned, before it is written as JSON (json_output.h): the
// same fields as ftdiag's model::GpuInventory (src/model/environment.h),
// which reads it back.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace gpu_probe {

struct ProcessUse {
  unsigned pid = 0;
  std::optional<unsigned long long> used_bytes;  // absent when NVML cannot see it
};

struct Device {
  int index = 0;  // CUDA's ordinal; NVML's index when CUDA could not be asked
  std::string name;
  std::string uuid;        // "GPU-…"
  std::string pci_bus_id;  // "0000:17:00.0", lower case
  std::string compute_capability;
  std::optional<unsigned long long> memory_total_bytes;
  std::optional<unsigned long long> memory_used_bytes;
  std::optional<unsigned long long> ecc_uncorrected;
  std::optional<unsigned long long> ecc_corrected;
  std::vector<ProcessUse> processes;
  int nvml_index = -1;  // the NVML device it is, for --watch; -1: none
};

struct Inventory {
  std::string libcuda;  // the path loaded; empty when none
  std::string libnvml;
  std::optional<int> cuda_driver_version;
  std::optional<int> cuda_init_result;
  std::string driver_version;
  std::vector<Device> devices;
  std::vector<std::string> problems;
};

// ftdiag refuses a document with more (collect/gpu_probe_output.h), so the
// probe stops at these: devices, and processes over all devices together.
inline constexpr int kMaxDevices = 64;
inline constexpr std::size_t kMaxProcesses = 4096;

// Keeps the first kMaxProcesses processes over `devices` (Device or
// SampleDevice); true when some were left out.
template <class Devices>
bool cap_processes(Devices& devices) {
  std::size_t left = kMaxProcesses;
  bool cut = false;
  for (auto& device : devices) {
    if (device.processes.size() > left) {
      device.processes.resize(left);
      cut = true;
    }
    left -= device.processes.size();
  }
  return cut;
}

// printf into a std::string, for the problems' texts.
std::string format(const char* format, ...) __attribute__((format(printf, 1, 2)));

// A PCI address as CUDA and the kernel write it, so that CUDA's
// ("0000:3B:00.0") and NVML's ("00000000:3B:00.0") compare equal: lower case,
// a 4-digit domain when the longer one only adds leading zeros.
std::string normalized_bus_id(const char* bus_id);

}  // namespace gpu_probe
