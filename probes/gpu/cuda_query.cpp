#include "cuda_query.h"

#include <stdio.h>

#include "driver_api.h"
#include "library.h"

namespace gpu_probe {

namespace {

bool bind_api(const Library& library, CudaApi& api, std::vector<std::string>& problems) {
  // Without these four nothing can be listed; the others cost one field each.
  const bool essential = bind(library, "cuDriverGetVersion", api.cuDriverGetVersion) &&
                         bind(library, "cuInit", api.cuInit) &&
                         bind(library, "cuDeviceGetCount", api.cuDeviceGetCount) &&
                         bind(library, "cuDeviceGet", api.cuDeviceGet);
  if (!essential) {
    problems.push_back(format("%s: not a CUDA driver library (it lacks cuInit, cuDeviceGet or cuDriverGetVersion)",
                              library.path.c_str()));
    return false;
  }
  const struct {
    const char* name;
    bool bound;
  } optional[] = {
      {"cuDeviceGetName", bind(library, "cuDeviceGetName", api.cuDeviceGetName)},
      {"cuDeviceGetUuid", bind(library, "cuDeviceGetUuid", api.cuDeviceGetUuid)},
      {"cuDeviceGetPCIBusId", bind(library, "cuDeviceGetPCIBusId", api.cuDeviceGetPCIBusId)},
      {"cuDeviceTotalMem_v2", bind(library, "cuDeviceTotalMem_v2", api.cuDeviceTotalMem_v2)},
      {"cuDeviceGetAttribute", bind(library, "cuDeviceGetAttribute", api.cuDeviceGetAttribute)},
  };
  for (const auto& entry : optional) {
    if (!entry.bound) problems.push_back(format("%s does not export %s", library.path.c_str(), entry.name));
  }
  return true;
}

std::string uuid_text(const CUuuid& uuid) {
  const unsigned char* b = uuid.bytes;
  return format("GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

// One device being described: each call's failure is a problem, and only
// that field stays empty.
struct DeviceQuery {
  const CudaApi& api;
  int ordinal;
  CUdevice device;
  std::vector<std::string>& problems;

  // Announces the call, makes it, records a failure; true when it worked.
  template <class Call>
  bool ask(const char* name, Call&& call) {
    announce(name, ordinal);
    const CUresult result = call();
    if (result == 0) return true;
    problems.push_back(format("%s failed for CUDA device %d: CUresult %d", name, ordinal, result));
    return false;
  }

  std::string name() {
    char text[256] = {};
    if (!api.cuDeviceGetName) return {};
    return ask("cuDeviceGetName", [&] { return api.cuDeviceGetName(text, sizeof text - 1, device); }) ? text : "";
  }

  std::string uuid() {
    CUuuid uuid{};
    if (!api.cuDeviceGetUuid) return {};
    return ask("cuDeviceGetUuid", [&] { return api.cuDeviceGetUuid(&uuid, device); }) ? uuid_text(uuid) : "";
  }

  std::string pci_bus_id() {
    char text[64] = {};
    if (!api.cuDeviceGetPCIBusId) return {};
    const bool ok = ask("cuDeviceGetPCIBusId", [&] { return api.cuDeviceGetPCIBusId(text, sizeof text - 1, device); });
    return ok ? normalized_bus_id(text) : "";
  }

  std::optional<unsigned long long> memory_total() {
    std::size_t bytes = 0;
    if (!api.cuDeviceTotalMem_v2) return std::nullopt;
    if (!ask("cuDeviceTotalMem_v2", [&] { return api.cuDeviceTotalMem_v2(&bytes, device); })) return std::nullopt;
    return bytes;
  }

  std::string compute_capability() {
    int major = 0;
    int minor = 0;
    if (!api.cuDeviceGetAttribute) return {};
    const bool ok = ask("cuDeviceGetAttribute", [&] {
      const CUresult r = api.cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
      return r != 0 ? r : api.cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    });
    return ok ? format("%d.%d", major, minor) : "";
  }
};

Device describe_device(const CudaApi& api, int ordinal, CUdevice device, std::vector<std::string>& problems) {
  DeviceQuery query{api, ordinal, device, problems};
  Device out;
  out.index = ordinal;
  out.name = query.name();
  out.uuid = query.uuid();
  out.pci_bus_id = query.pci_bus_id();
  out.memory_total_bytes = query.memory_total();
  out.compute_capability = query.compute_capability();
  return out;
}

void list_devices(const CudaApi& api, CudaFindings& findings, std::vector<std::string>& problems) {
  int count = 0;
  announce("cuDeviceGetCount");
  if (const CUresult r = api.cuDeviceGetCount(&count); r != 0) {
    problems.push_back(format("cuDeviceGetCount failed: CUresult %d", r));
    return;
  }
  findings.listed = true;
  if (count > kMaxDevices) {
    problems.push_back(format("CUDA lists %d devices: only the first %d are described", count, kMaxDevices));
  }
  for (int ordinal = 0; ordinal < count && ordinal < kMaxDevices; ++ordinal) {
    CUdevice device = 0;
    announce("cuDeviceGet", ordinal);
    if (const CUresult r = api.cuDeviceGet(&device, ordinal); r != 0) {
      problems.push_back(format("cuDeviceGet failed for CUDA device %d: CUresult %d", ordinal, r));
      continue;
    }
    findings.devices.push_back(describe_device(api, ordinal, device, problems));
  }
}

}  // namespace

CudaFindings query_cuda(std::vector<std::string>& problems) {
  CudaFindings findings;
  const Library library = load_library("FTDIAG_LIBCUDA", "libcuda.so.1");
  if (!library.handle) {
    problems.push_back(format("%s: could not be loaded (%s)", library.requested.c_str(), library.error.c_str()));
    return findings;
  }
  findings.path = library.path;
  CudaApi api;
  if (!bind_api(library, api, problems)) return findings;
  // Before cuInit, which it does not need: a driver whose cuInit fails
  // still says which CUDA it supports.
  int version = 0;
  announce("cuDriverGetVersion");
  if (const CUresult r = api.cuDriverGetVersion(&version); r == 0) {
    findings.driver_version = version;
  } else {
    problems.push_back(format("cuDriverGetVersion failed: CUresult %d", r));
  }
  announce("cuInit");
  findings.init_result = api.cuInit(0);
  if (*findings.init_result != 0) {
    problems.push_back(format("cuInit failed: CUresult %d", *findings.init_result));
    return findings;
  }
  list_devices(api, findings, problems);
  return findings;
}

}  // namespace gpu_probe
