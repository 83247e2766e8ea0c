/* A fake NVML, built as libnvidia-ml.so.1 (tests/gpu_fakes/CMakeLists.txt)
 * for the GPU probe's tests: the real entry points with their real
 * signatures, answering from the environment (fake_gpus.h), plus:
 *
 *   FAKE_NVML_DRIVER_VERSION  nvmlSystemGetDriverVersion's answer ("530.30.02")
 *   FAKE_NVML_INIT            "ok" (default) or "error:N" (nvmlInit_v2 returns N)
 *   FAKE_NVML_PROCESS_API     "v2" (default) or "v1": then
 *                             nvmlDeviceGetComputeRunningProcesses_v2 answers
 *                             NVML_ERROR_FUNCTION_NOT_FOUND, as some drivers do
 *
 * Like the real NVML it sees every GPU whatever CUDA_VISIBLE_DEVICES says. */
#include "fake_gpus.h"

#define EXPORT __attribute__((visibility("default")))

enum {
  NVML_SUCCESS = 0,
  NVML_ERROR_UNINITIALIZED = 1,
  NVML_ERROR_INVALID_ARGUMENT = 2,
  NVML_ERROR_NOT_SUPPORTED = 3,
  NVML_ERROR_INSUFFICIENT_SIZE = 7,
  NVML_ERROR_FUNCTION_NOT_FOUND = 13,
};

typedef int nvmlReturn_t;
struct nvmlDevice_st {
  int gpu;
};
typedef struct nvmlDevice_st* nvmlDevice_t;
typedef struct {
  unsigned long long total, free, used;
} nvmlMemory_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
} nvmlProcessInfo_v1_t;
typedef struct {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
} nvmlProcessInfo_v2_t;
typedef struct {
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
} nvmlPciInfo_t;

static struct nvmlDevice_st devices[FAKE_MAX_GPUS];
static int initialized;

static int valid(nvmlDevice_t device) {
  return device && device >= devices && device < devices + fake_gpu_count();
}

EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
  switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case 9: return "Driver Not Loaded";
    default: return "Unknown Error";
  }
}

EXPORT nvmlReturn_t nvmlInit_v2(void) {
  const char* mode = fake_env("FAKE_NVML_INIT", "ok");
  if (strncmp(mode, "error:", 6) == 0) return atoi(mode + 6);
  for (int i = 0; i < FAKE_MAX_GPUS; ++i) devices[i].gpu = i;
  initialized = 1;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void) {
  initialized = 0;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char* version, unsigned length) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!version || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  snprintf(version, length, "%s", fake_env("FAKE_NVML_DRIVER_VERSION", "530.30.02"));
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!count) return NVML_ERROR_INVALID_ARGUMENT;
  *count = (unsigned)fake_gpu_count();
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t* device) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!device || index >= (unsigned)fake_gpu_count()) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &devices[index];
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned length) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !name || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  snprintf(name, length, "%s", fake_env("FAKE_GPU_NAME", "NVIDIA H100 80GB HBM3"));
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned length) {
  unsigned char b[16];
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !uuid || length == 0) return NVML_ERROR_INVALID_ARGUMENT;
  fake_gpu_uuid(device->gpu, b);
  snprintf(uuid, length, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !pci) return NVML_ERROR_INVALID_ARGUMENT;
  memset(pci, 0, sizeof *pci);
  pci->bus = (unsigned)fake_gpu_bus(device->gpu);
  /* NVML's form: an 8-digit domain. */
  snprintf(pci->busId, sizeof pci->busId, "00000000:%02X:00.0", pci->bus);
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "0000:%02X:00.0", pci->bus);
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !memory) return NVML_ERROR_INVALID_ARGUMENT;
  memory->total = fake_env_number("FAKE_GPU_MEMORY_TOTAL", 80ULL << 30);
  memory->used = fake_env_number("FAKE_GPU_MEMORY_USED", 1ULL << 30);
  memory->free = memory->total > memory->used ? memory->total - memory->used : 0;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, int error_type, int counter_type,
                                                unsigned long long* count) {
  const char* uncorrected = fake_env("FAKE_GPU_ECC_UNCORRECTED", "0");
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !count || counter_type < 0 || counter_type > 1) return NVML_ERROR_INVALID_ARGUMENT;
  if (strcmp(uncorrected, "unsupported") == 0) return NVML_ERROR_NOT_SUPPORTED;
  if (error_type == 1) *count = strtoull(uncorrected, NULL, 10); /* NVML_MEMORY_ERROR_TYPE_UNCORRECTED */
  else if (error_type == 0) *count = fake_env_number("FAKE_GPU_ECC_CORRECTED", 0);
  else return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}

typedef void (*store_process)(void* infos, int i, const struct fake_process* process);

static void store_v1(void* infos, int i, const struct fake_process* process) {
  nvmlProcessInfo_v1_t* info = (nvmlProcessInfo_v1_t*)infos + i;
  info->pid = process->pid;
  info->usedGpuMemory = process->bytes;
}

static void store_v2(void* infos, int i, const struct fake_process* process) {
  nvmlProcessInfo_v2_t* info = (nvmlProcessInfo_v2_t*)infos + i;
  info->pid = process->pid;
  info->usedGpuMemory = process->bytes;
  info->gpuInstanceId = 0xFFFFFFFFu; /* NVML_VALUE_NOT_AVAILABLE: no MIG */
  info->computeInstanceId = 0xFFFFFFFFu;
}

/* Both process-list versions: fill `infos` (room for *count) or say how many
 * there are, as NVML does. */
static nvmlReturn_t list_processes(nvmlDevice_t device, unsigned* count, void* infos, store_process store) {
  struct fake_process processes[FAKE_MAX_PROCESSES];
  int n;
  if (!initialized) return NVML_ERROR_UNINITIALIZED;
  if (!valid(device) || !count) return NVML_ERROR_INVALID_ARGUMENT;
  n = fake_gpu_processes(device->gpu, processes);
  if (*count < (unsigned)n) {
    *count = (unsigned)n;
    return NVML_ERROR_INSUFFICIENT_SIZE;
  }
  for (int i = 0; i < n; ++i) store(infos, i, &processes[i]);
  *count = (unsigned)n;
  return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned* count,
                                                            nvmlProcessInfo_v2_t* infos) {
  if (strcmp(fake_env("FAKE_NVML_PROCESS_API", "v2"), "v1") == 0) return NVML_ERROR_FUNCTION_NOT_FOUND;
  return list_processes(device, count, infos, store_v2);
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned* count,
                                                         nvmlProcessInfo_v1_t* infos) {
  return list_processes(device, count, infos, store_v1);
}
