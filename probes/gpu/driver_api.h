// The few types and entry points of the CUDA driver API (cuda.h) and NVML
// (nvml.h) that the GPU probe calls, declared here so that the probe builds
// without CUDA's headers and finds the libraries only at run time (dlopen):
// a machine without a driver still gets an answer, and says so.
//
// Layouts and values are those of the public headers (CUDA 12, NVML R535+).
// Only entry points whose behaviour and struct layout have been stable
// across driver versions are used (see nvml_query.cpp for the one exception
// avoided: nvmlDeviceGetComputeRunningProcesses_v3).
#pragma once

#include <cstddef>

namespace gpu_probe {

// ---- CUDA driver API (libcuda.so.1)
using CUresult = int;  // an enum in cuda.h; 0 is CUDA_SUCCESS
using CUdevice = int;
struct CUuuid {
  unsigned char bytes[16];
};
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
inline constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;

// Every call the probe makes; none of them creates a context (no
// cuCtxCreate, no cuDevicePrimaryCtxRetain): asking must not take GPU memory
// from a job or wake a GPU that is shared.
struct CudaApi {
  CUresult (*cuDriverGetVersion)(int* version) = nullptr;
  CUresult (*cuInit)(unsigned flags) = nullptr;
  CUresult (*cuDeviceGetCount)(int* count) = nullptr;
  CUresult (*cuDeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*cuDeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  // The unversioned one: the physical GPU's UUID (the _v2 gives a MIG
  // instance's), which is what NVML's device handle reports too.
  CUresult (*cuDeviceGetUuid)(CUuuid* uuid, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetPCIBusId)(char* bus_id, int length, CUdevice device) = nullptr;
  CUresult (*cuDeviceTotalMem_v2)(std::size_t* bytes, CUdevice device) = nullptr;
  CUresult (*cuDeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
};

// ---- NVML (libnvidia-ml.so.1)
using nvmlReturn_t = int;  // an enum in nvml.h
struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;
inline constexpr nvmlReturn_t NVML_SUCCESS = 0;
inline constexpr nvmlReturn_t NVML_ERROR_NOT_SUPPORTED = 3;
inline constexpr nvmlReturn_t NVML_ERROR_INSUFFICIENT_SIZE = 7;
inline constexpr nvmlReturn_t NVML_ERROR_FUNCTION_NOT_FOUND = 13;
inline constexpr int NVML_MEMORY_ERROR_TYPE_CORRECTED = 0;
inline constexpr int NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1;
inline constexpr int NVML_VOLATILE_ECC = 0;
// NVML_VALUE_NOT_AVAILABLE: a process's memory NVML cannot see.
inline constexpr unsigned long long NVML_VALUE_NOT_AVAILABLE = ~0ULL;

struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlDeviceGetComputeRunningProcesses (unversioned).
struct nvmlProcessInfo_v1_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

// nvmlDeviceGetComputeRunningProcesses_v2.
struct nvmlProcessInfo_v2_t {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// nvmlDeviceGetPciInfo_v3.
struct nvmlPciInfo_t {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];  // "00000000:17:00.0"
};

struct NvmlApi {
  nvmlReturn_t (*nvmlInit_v2)() = nullptr;
  nvmlReturn_t (*nvmlShutdown)() = nullptr;
  const char* (*nvmlErrorString)(nvmlReturn_t result) = nullptr;  // optional
  nvmlReturn_t (*nvmlSystemGetDriverVersion)(char* version, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetCount_v2)(unsigned* count) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetHandleByIndex_v2)(unsigned index, nvmlDevice_t* device) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetName)(nvmlDevice_t device, char* name, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetUUID)(nvmlDevice_t device, char* uuid, unsigned length) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetPciInfo_v3)(nvmlDevice_t device, nvmlPciInfo_t* pci) = nullptr;  // optional
  nvmlReturn_t (*nvmlDeviceGetMemoryInfo)(nvmlDevice_t device, nvmlMemory_t* memory) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetTotalEccErrors)(nvmlDevice_t device, int error_type, int counter_type,
                                              unsigned long long* count) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses_v2)(nvmlDevice_t device, unsigned* count,
                                                          nvmlProcessInfo_v2_t* infos) = nullptr;
  nvmlReturn_t (*nvmlDeviceGetComputeRunningProcesses)(nvmlDevice_t device, unsigned* count,
                                                       nvmlProcessInfo_v1_t* infos) = nullptr;
};

}  // namespace gpu_probe
