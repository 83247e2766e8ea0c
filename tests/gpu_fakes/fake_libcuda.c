/* A fake CUDA driver library, built as libcuda.so.1 (tests/gpu_fakes/
 * CMakeLists.txt) for the GPU probe's tests: it exports the driver API's real
 * entry points with their real signatures and answers from the environment
 * (fake_gpus.h), plus:
 *
 *   FAKE_CUDA_DRIVER_VERSION  cuDriverGetVersion's answer (default 12010)
 *   FAKE_CUDA_INIT            "ok" (default), "segv" (cuInit writes through
 *                             NULL), "hang" (cuInit never returns),
 *                             "error:N" (cuInit returns CUresult N)
 *
 * Like the real driver it applies CUDA_VISIBLE_DEVICES (integer indices; the
 * list ends at the first invalid one) and answers CUDA_ERROR_NOT_INITIALIZED
 * before cuInit. No GPU is touched. */
#include <unistd.h>

#include "fake_gpus.h"

#define EXPORT __attribute__((visibility("default")))

enum {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_NOT_INITIALIZED = 3,
  CUDA_ERROR_INVALID_DEVICE = 101,
};

typedef int CUresult;
typedef int CUdevice;
typedef struct {
  char bytes[16];
} CUuuid;

static int initialized;

/* The physical GPUs CUDA_VISIBLE_DEVICES leaves, in its order. */
static int visible_gpus(int out[FAKE_MAX_GPUS]) {
  const int physical = fake_gpu_count();
  const char* list = getenv("CUDA_VISIBLE_DEVICES");
  int count = 0;
  if (!list) {
    for (int i = 0; i < physical; ++i) out[count++] = i;
    return count;
  }
  while (*list && count < FAKE_MAX_GPUS) {
    char* end = NULL;
    long gpu = strtol(list, &end, 10);
    if (end == list || gpu < 0 || gpu >= physical) break;
    out[count++] = (int)gpu;
    if (*end != ',') break;
    list = end + 1;
  }
  return count;
}

/* The physical GPU behind a CUdevice (which is the ordinal here), or -1. */
static int physical_gpu(CUdevice device) {
  int gpus[FAKE_MAX_GPUS];
  const int count = visible_gpus(gpus);
  return device >= 0 && device < count ? gpus[device] : -1;
}

EXPORT CUresult cuDriverGetVersion(int* version) {
  if (!version) return CUDA_ERROR_INVALID_VALUE;
  *version = (int)fake_env_number("FAKE_CUDA_DRIVER_VERSION", 12010);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuInit(unsigned flags) {
  const char* mode = fake_env("FAKE_CUDA_INIT", "ok");
  if (flags != 0) return CUDA_ERROR_INVALID_VALUE;
  if (strcmp(mode, "segv") == 0) {
    *(volatile int*)NULL = 1; /* as a driver whose kernel module does not match */
  }
  if (strcmp(mode, "hang") == 0) {
    for (;;) pause();
  }
  if (strncmp(mode, "error:", 6) == 0) return atoi(mode + 6);
  initialized = 1;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int* count) {
  int gpus[FAKE_MAX_GPUS];
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!count) return CUDA_ERROR_INVALID_VALUE;
  *count = visible_gpus(gpus);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice* device, int ordinal) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!device) return CUDA_ERROR_INVALID_VALUE;
  if (physical_gpu(ordinal) < 0) return CUDA_ERROR_INVALID_DEVICE;
  *device = ordinal;
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char* name, int length, CUdevice device) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!name || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (physical_gpu(device) < 0) return CUDA_ERROR_INVALID_DEVICE;
  snprintf(name, (size_t)length, "%s", fake_env("FAKE_GPU_NAME", "NVIDIA H100 80GB HBM3"));
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetUuid(CUuuid* uuid, CUdevice device) {
  const int gpu = physical_gpu(device);
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!uuid) return CUDA_ERROR_INVALID_VALUE;
  if (gpu < 0) return CUDA_ERROR_INVALID_DEVICE;
  fake_gpu_uuid(gpu, (unsigned char*)uuid->bytes);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetPCIBusId(char* bus_id, int length, CUdevice device) {
  const int gpu = physical_gpu(device);
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!bus_id || length <= 0) return CUDA_ERROR_INVALID_VALUE;
  if (gpu < 0) return CUDA_ERROR_INVALID_DEVICE;
  /* CUDA's form: a 4-digit domain, upper-case hex. */
  snprintf(bus_id, (size_t)length, "0000:%02X:00.0", fake_gpu_bus(gpu));
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t* bytes, CUdevice device) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!bytes) return CUDA_ERROR_INVALID_VALUE;
  if (physical_gpu(device) < 0) return CUDA_ERROR_INVALID_DEVICE;
  *bytes = (size_t)fake_env_number("FAKE_GPU_MEMORY_TOTAL", 80ULL << 30);
  return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetAttribute(int* value, int attribute, CUdevice device) {
  int major = 0, minor = 0;
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  if (!value) return CUDA_ERROR_INVALID_VALUE;
  if (physical_gpu(device) < 0) return CUDA_ERROR_INVALID_DEVICE;
  if (sscanf(fake_env("FAKE_GPU_CC", "9.0"), "%d.%d", &major, &minor) != 2) return CUDA_ERROR_INVALID_VALUE;
  if (attribute == 75) *value = major; /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
  else if (attribute == 76) *value = minor;
  else return CUDA_ERROR_INVALID_VALUE;
  return CUDA_SUCCESS;
}
