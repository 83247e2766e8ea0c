#include "nvml_query.h"

namespace gpu_probe {

namespace {

std::string error_text(const NvmlApi& api, nvmlReturn_t result) {
  const char* words = api.nvmlErrorString ? api.nvmlErrorString(result) : nullptr;
  return words ? format("nvmlReturn %d (%s)", result, words) : format("nvmlReturn %d", result);
}

void note(std::vector<std::string>* problems, const NvmlApi& api, const char* call, int index, nvmlReturn_t result) {
  if (!problems) return;
  problems->push_back(format("%s failed for NVML device %d: %s", call, index, error_text(api, result).c_str()));
}

bool bind_api(const Library& library, NvmlApi& api, std::vector<std::string>& problems) {
  bind(library, "nvmlErrorString", api.nvmlErrorString);
  bind(library, "nvmlDeviceGetPciInfo_v3", api.nvmlDeviceGetPciInfo_v3);
  bind(library, "nvmlDeviceGetComputeRunningProcesses", api.nvmlDeviceGetComputeRunningProcesses);
  bind(library, "nvmlDeviceGetComputeRunningProcesses_v2", api.nvmlDeviceGetComputeRunningProcesses_v2);
  const bool bound = bind(library, "nvmlInit_v2", api.nvmlInit_v2) && bind(library, "nvmlShutdown", api.nvmlShutdown) &&
                     bind(library, "nvmlSystemGetDriverVersion", api.nvmlSystemGetDriverVersion) &&
                     bind(library, "nvmlDeviceGetCount_v2", api.nvmlDeviceGetCount_v2) &&
                     bind(library, "nvmlDeviceGetHandleByIndex_v2", api.nvmlDeviceGetHandleByIndex_v2) &&
                     bind(library, "nvmlDeviceGetName", api.nvmlDeviceGetName) &&
                     bind(library, "nvmlDeviceGetUUID", api.nvmlDeviceGetUUID) &&
                     bind(library, "nvmlDeviceGetMemoryInfo", api.nvmlDeviceGetMemoryInfo) &&
                     bind(library, "nvmlDeviceGetTotalEccErrors", api.nvmlDeviceGetTotalEccErrors);
  if (!bound) problems.push_back(format("%s: not an NVML library (an entry point of NVML R450+ is missing)",
                                        library.path.c_str()));
  return bound;
}

void list_handles(NvmlSession& nvml, std::vector<std::string>& problems) {
  unsigned count = 0;
  announce("nvmlDeviceGetCount_v2");
  if (const nvmlReturn_t r = nvml.api.nvmlDeviceGetCount_v2(&count); r != NVML_SUCCESS) {
    problems.push_back(format("nvmlDeviceGetCount_v2 failed: %s", error_text(nvml.api, r).c_str()));
    return;
  }
  for (unsigned i = 0; i < count && i < static_cast<unsigned>(kMaxDevices); ++i) {
    nvmlDevice_t handle = nullptr;
    announce("nvmlDeviceGetHandleByIndex_v2", static_cast<int>(i));
    if (const nvmlReturn_t r = nvml.api.nvmlDeviceGetHandleByIndex_v2(i, &handle); r != NVML_SUCCESS) {
      note(&problems, nvml.api, "nvmlDeviceGetHandleByIndex_v2", static_cast<int>(i), r);
      handle = nullptr;
    }
    nvml.handles.push_back(handle);
  }
}

// Calls `get` with a buffer that grows while NVML says it is too small (a
// process may start between two calls).
template <class Info, class Get>
nvmlReturn_t read_process_list(Get get, nvmlDevice_t device, std::vector<ProcessUse>& out) {
  std::vector<Info> infos(32);
  for (int attempt = 0; attempt < 4; ++attempt) {
    unsigned count = static_cast<unsigned>(infos.size());
    const nvmlReturn_t r = get(device, &count, infos.data());
    if (r == NVML_ERROR_INSUFFICIENT_SIZE && count < kMaxProcesses) {
      infos.resize(count + 16);
      continue;
    }
    if (r != NVML_SUCCESS) return r;
    for (unsigned i = 0; i < count && i < infos.size(); ++i) {
      ProcessUse use;
      use.pid = infos[i].pid;
      if (infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE) use.used_bytes = infos[i].usedGpuMemory;
      out.push_back(use);
    }
    return NVML_SUCCESS;
  }
  return NVML_ERROR_INSUFFICIENT_SIZE;
}

// _v2 first, then the unversioned call (v1 layout). Not _v3: R535 drivers
// fill it with a 32-byte struct (usedGpuCcProtectedMemory added) where other
// drivers use the 24-byte _v2 layout, without a version bump, so its stride
// cannot be known (NVIDIA/go-nvml#75, XuehaiPan/nvitop#79). A driver that
// exports _v2 but answers FUNCTION_NOT_FOUND falls back too.
nvmlReturn_t read_processes(const NvmlApi& api, nvmlDevice_t device, std::vector<ProcessUse>& out) {
  nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
  if (api.nvmlDeviceGetComputeRunningProcesses_v2) {
    r = read_process_list<nvmlProcessInfo_v2_t>(api.nvmlDeviceGetComputeRunningProcesses_v2, device, out);
  }
  if (r == NVML_ERROR_FUNCTION_NOT_FOUND && api.nvmlDeviceGetComputeRunningProcesses) {
    out.clear();
    r = read_process_list<nvmlProcessInfo_v1_t>(api.nvmlDeviceGetComputeRunningProcesses, device, out);
  }
  return r;
}

std::optional<unsigned long long> ecc_count(const NvmlSession& nvml, nvmlDevice_t device, int type, int index,
                                            std::vector<std::string>& problems) {
  unsigned long long count = 0;
  const nvmlReturn_t r = nvml.api.nvmlDeviceGetTotalEccErrors(device, type, NVML_VOLATILE_ECC, &count);
  if (r == NVML_SUCCESS) return count;
  // A GPU without ECC (or with it off) is not a problem worth listing.
  if (r != NVML_ERROR_NOT_SUPPORTED) note(&problems, nvml.api, "nvmlDeviceGetTotalEccErrors", index, r);
  return std::nullopt;
}

// A string NVML writes into a buffer (name, UUID); empty when it fails.
template <class Get>
std::string text_of(const NvmlSession& nvml, const char* call, int index, Get get, std::vector<std::string>& problems) {
  char text[128] = {};
  announce(call, index);
  if (const nvmlReturn_t r = get(text, static_cast<unsigned>(sizeof text - 1)); r != NVML_SUCCESS) {
    note(&problems, nvml.api, call, index, r);
    return {};
  }
  return text;
}

std::string pci_bus_id(const NvmlSession& nvml, nvmlDevice_t handle, int index) {
  nvmlPciInfo_t pci{};
  if (!nvml.api.nvmlDeviceGetPciInfo_v3) return {};
  announce("nvmlDeviceGetPciInfo_v3", index);
  if (nvml.api.nvmlDeviceGetPciInfo_v3(handle, &pci) != NVML_SUCCESS) return {};
  pci.busId[sizeof pci.busId - 1] = '\0';
  return normalized_bus_id(pci.busId);
}

Device describe_one(const NvmlSession& nvml, int index, std::vector<std::string>& problems) {
  const nvmlDevice_t handle = nvml.handles[static_cast<std::size_t>(index)];
  Device device;
  device.index = index;
  device.nvml_index = index;
  device.name = text_of(nvml, "nvmlDeviceGetName", index,
                        [&](char* text, unsigned length) { return nvml.api.nvmlDeviceGetName(handle, text, length); },
                        problems);
  device.uuid = text_of(nvml, "nvmlDeviceGetUUID", index,
                        [&](char* text, unsigned length) { return nvml.api.nvmlDeviceGetUUID(handle, text, length); },
                        problems);
  device.pci_bus_id = pci_bus_id(nvml, handle, index);
  announce("nvmlDeviceGetTotalEccErrors", index);
  device.ecc_uncorrected = ecc_count(nvml, handle, NVML_MEMORY_ERROR_TYPE_UNCORRECTED, index, problems);
  device.ecc_corrected = ecc_count(nvml, handle, NVML_MEMORY_ERROR_TYPE_CORRECTED, index, problems);
  auto usage = read_usage(nvml, index, &problems);
  device.memory_total_bytes = usage.memory_total_bytes;
  device.memory_used_bytes = usage.memory_used_bytes;
  device.processes = std::move(usage.processes);
  return device;
}

}  // namespace

std::optional<NvmlSession> open_nvml(std::vector<std::string>& problems) {
  NvmlSession nvml;
  nvml.library = load_library("FTDIAG_LIBNVML", "libnvidia-ml.so.1");
  if (!nvml.library.handle) {
    problems.push_back(
        format("%s: could not be loaded (%s)", nvml.library.requested.c_str(), nvml.library.error.c_str()));
    return std::nullopt;
  }
  if (!bind_api(nvml.library, nvml.api, problems)) return std::nullopt;
  announce("nvmlInit_v2");
  if (const nvmlReturn_t r = nvml.api.nvmlInit_v2(); r != NVML_SUCCESS) {
    problems.push_back(format("nvmlInit_v2 failed: %s", error_text(nvml.api, r).c_str()));
    return std::nullopt;
  }
  char version[96] = {};
  announce("nvmlSystemGetDriverVersion");
  if (const nvmlReturn_t r = nvml.api.nvmlSystemGetDriverVersion(version, sizeof version - 1); r == NVML_SUCCESS) {
    nvml.driver_version = version;
  } else {
    problems.push_back(format("nvmlSystemGetDriverVersion failed: %s", error_text(nvml.api, r).c_str()));
  }
  list_handles(nvml, problems);
  return nvml;
}

std::vector<Device> describe_nvml_devices(const NvmlSession& nvml, std::vector<std::string>& problems) {
  std::vector<Device> devices;
  for (std::size_t i = 0; i < nvml.handles.size(); ++i) {
    if (nvml.handles[i]) devices.push_back(describe_one(nvml, static_cast<int>(i), problems));
  }
  return devices;
}

DeviceUsage read_usage(const NvmlSession& nvml, int nvml_index, std::vector<std::string>* problems) {
  DeviceUsage usage;
  const nvmlDevice_t handle = nvml.handles[static_cast<std::size_t>(nvml_index)];
  if (problems) announce("nvmlDeviceGetMemoryInfo", nvml_index);
  nvmlMemory_t memory{};
  if (const nvmlReturn_t r = nvml.api.nvmlDeviceGetMemoryInfo(handle, &memory); r == NVML_SUCCESS) {
    usage.memory_used_bytes = memory.used;
    usage.memory_total_bytes = memory.total;
  } else {
    note(problems, nvml.api, "nvmlDeviceGetMemoryInfo", nvml_index, r);
  }
  if (problems) announce("nvmlDeviceGetComputeRunningProcesses", nvml_index);
  if (const nvmlReturn_t r = read_processes(nvml.api, handle, usage.processes); r != NVML_SUCCESS) {
    note(problems, nvml.api, "nvmlDeviceGetComputeRunningProcesses", nvml_index, r);
  }
  return usage;
}

void close_nvml(const NvmlSession& nvml) { nvml.api.nvmlShutdown(); }

}  // namespace gpu_probe
