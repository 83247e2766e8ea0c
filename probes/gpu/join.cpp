#include "join.h"

#include <strings.h>

namespace gpu_probe {

namespace {

bool same_gpu(const Device& cuda, const Device& nvml) {
  if (!cuda.uuid.empty() && !nvml.uuid.empty()) return ::strcasecmp(cuda.uuid.c_str(), nvml.uuid.c_str()) == 0;
  return !cuda.pci_bus_id.empty() && cuda.pci_bus_id == nvml.pci_bus_id;
}

// CUDA's answer wins where both have one; NVML fills the rest.
void complete(Device& device, const Device& nvml) {
  device.nvml_index = nvml.nvml_index;
  if (device.name.empty()) device.name = nvml.name;
  if (device.uuid.empty()) device.uuid = nvml.uuid;
  if (device.pci_bus_id.empty()) device.pci_bus_id = nvml.pci_bus_id;
  if (!device.memory_total_bytes) device.memory_total_bytes = nvml.memory_total_bytes;
  device.memory_used_bytes = nvml.memory_used_bytes;
  device.ecc_uncorrected = nvml.ecc_uncorrected;
  device.ecc_corrected = nvml.ecc_corrected;
  device.processes = nvml.processes;
}

}  // namespace

Inventory join_findings(CudaFindings cuda, const NvmlSession* nvml, std::vector<std::string> problems) {
  Inventory inventory;
  inventory.libcuda = cuda.path;
  inventory.cuda_driver_version = cuda.driver_version;
  inventory.cuda_init_result = cuda.init_result;
  std::vector<Device> nvml_devices;
  if (nvml) {
    inventory.libnvml = nvml->library.path;
    inventory.driver_version = nvml->driver_version;
    nvml_devices = describe_nvml_devices(*nvml, problems);
  }
  if (!cuda.listed) {
    inventory.devices = std::move(nvml_devices);
  } else {
    inventory.devices = std::move(cuda.devices);
    for (auto& device : inventory.devices) {
      bool matched = false;
      for (const auto& candidate : nvml_devices) {
        if (!same_gpu(device, candidate)) continue;
        complete(device, candidate);
        matched = true;
        break;
      }
      if (nvml && !matched) {
        problems.push_back(format("NVML has no device matching CUDA device %d (%s)", device.index,
                                  device.uuid.empty() ? device.pci_bus_id.c_str() : device.uuid.c_str()));
      }
    }
  }
  if (cap_processes(inventory.devices)) {
    problems.push_back(format("more than %zu GPU processes: the rest are left out", kMaxProcesses));
  }
  inventory.problems = std::move(problems);
  return inventory;
}

}  // namespace gpu_probe
