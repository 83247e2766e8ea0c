// The environment a job runs in, as read before or beside it: the GPUs and
// their driver (probes/gpu), the Python installation the command will use
// (read from files, never by importing it), and the host's settings that
// decide how a job can die (RAM, limits, /dev/shm, core dumps, the kernel
// log). One definition each, shared by the readers (src/collect/), the
// evidence document (src/evidence/, whose field tables give their JSON form)
// and the facts. Plain data; no behaviour.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "model/memory.h"

namespace ftdiag::model {

// ---- GPUs, from the probe (probes/gpu), which asks the driver in its own process

struct GpuProcessUse {
  int pid = 0;  // as NVML reports it: the host's pid namespace
  std::optional<Bytes> used;  // absent when NVML cannot tell (a MIG instance, no permission)

  bool operator==(const GpuProcessUse&) const = default;
};

struct GpuDevice {
  int index = 0;  // CUDA's ordinal (NVML's index when CUDA could not be asked)
  std::string name;        // "NVIDIA H100 80GB HBM3"
  std::string uuid;        // "GPU-5a3b…"
  std::string pci_bus_id;  // "0000:17:00.0"
  std::string compute_capability;  // "9.0"; empty when unknown
  std::optional<Bytes> memory_total;
  std::optional<Bytes> memory_used;               // NVML
  std::optional<std::uint64_t> ecc_uncorrected;   // volatile count, NVML; absent when not readable
  std::optional<std::uint64_t> ecc_corrected;
  std::vector<GpuProcessUse> processes;           // NVML's compute processes

  bool operator==(const GpuDevice&) const = default;
};

// What the probe found. The probe itself failing (crashed, hung, no driver)
// is the `probed` Missing with the reason: a broken driver install is
// evidence, never ftdiag's crash.
struct GpuInventory {
  std::string command;  // how the probe was run
  Fact<bool> probed = Missing{MissingReason::not_present, "the GPU probe did not run"};
  std::string libcuda;  // the path dlopen'ed, empty when not found
  std::string libnvml;
  std::optional<int> cuda_driver_version;  // cuDriverGetVersion: 12010 = CUDA 12.1
  std::optional<int> cuda_init_result;     // cuInit's CUresult (0: success)
  std::string driver_version;              // NVML: "535.104.05"
  std::vector<GpuDevice> devices;
  std::vector<std::string> problems;       // what the probe could not ask, and why

  bool operator==(const GpuInventory&) const = default;
};

// One reading of GPU memory while a job runs (the probe's --watch mode, at
// its own rate): per device, and per process using it.
struct GpuDeviceUse {
  int index = 0;
  std::optional<Bytes> used;
  std::vector<GpuProcessUse> processes;

  bool operator==(const GpuDeviceUse&) const = default;
};

struct GpuMemorySample {
  double time = 0;  // wall clock, seconds since the epoch
  std::vector<GpuDeviceUse> devices;

  bool operator==(const GpuMemorySample&) const = default;
};

// ---- Python, read from files (version.py, dist-info, ELF headers)

struct PythonPackage {
  std::string name;      // the distribution's name, normalised: "torch", "nvidia-cuda-runtime-cu12"
  std::string version;   // "2.7.0+cu128"
  std::string location;  // the directory it was read from
  // What the package recorded about its own build: torch's version.py
  // (cuda, git_version, hip), DeepSpeed's build info (torch_version,
  // cuda_version, installed_ops), bitsandbytes' libraries (cuda_libraries).
  std::map<std::string, std::string> build;

  bool operator==(const PythonPackage&) const = default;
};

// A native library of an installed package and the runtimes it links.
struct NativeLibrary {
  std::string path;
  std::string package;  // the package that ships it ("flash_attn", "torch")
  // DT_NEEDED entries naming a CUDA or torch runtime: "libcudart.so.12",
  // "libtorch_cuda.so", "libc10.so". Other dependencies are left out.
  std::vector<std::string> needed;

  bool operator==(const NativeLibrary&) const = default;
};

// A directory of LD_LIBRARY_PATH, in order, and the runtime libraries it
// holds that would be found before a package's own.
struct LibraryPathEntry {
  std::string directory;
  std::vector<std::string> provides;  // "libcudart.so.11.0", "libtorch.so"

  bool operator==(const LibraryPathEntry&) const = default;
};

struct PythonEnvironment {
  std::string command;      // how sys.path was asked
  Fact<bool> read = Missing{MissingReason::not_present, "the Python environment was not read"};
  std::string interpreter;  // the path resolved
  std::string found_by;     // "--python", "the command", "the shebang of /usr/local/bin/deepspeed", "PATH"
  std::string version;      // "3.11.2"
  std::vector<std::string> sys_path;
  std::vector<PythonPackage> packages;      // those that decide how a training job runs
  std::vector<NativeLibrary> libraries;     // their native libraries that link a CUDA or torch runtime
  std::vector<LibraryPathEntry> ld_library_path;
  std::vector<std::string> problems;

  bool operator==(const PythonEnvironment&) const = default;
};

// ---- The host's settings

struct ResourceLimit {
  std::optional<std::uint64_t> soft;  // absent: unlimited
  std::optional<std::uint64_t> hard;

  bool operator==(const ResourceLimit&) const = default;
};

struct SystemSettings {
  Fact<Bytes> mem_total = Missing{};
  Fact<Bytes> mem_available = Missing{};
  Fact<Bytes> swap_total = Missing{};
  // The memory limit of the cgroup a job started from here would run in
  // (ftdiag's own): nullopt when it has none.
  Fact<std::optional<Bytes>> cgroup_limit = Missing{};
  std::string cgroup;  // its path
  Fact<Bytes> shm_total = Missing{};
  Fact<Bytes> shm_available = Missing{};
  Fact<ResourceLimit> memlock = Missing{};
  Fact<ResourceLimit> nofile = Missing{};
  Fact<ResourceLimit> core = Missing{};
  Fact<int> dmesg_restrict = Missing{};
  Fact<bool> kernel_log_readable = Missing{};  // whether ftdiag could open /dev/kmsg here
  Fact<std::string> core_pattern = Missing{};
  Fact<std::vector<std::string>> oom_daemons = Missing{};  // systemd-oomd, earlyoom, … running now
  std::optional<int> cpu_count;
  bool as_root = false;  // read with euid 0: what root sees, not what a user would

  bool operator==(const SystemSettings&) const = default;
};

}  // namespace ftdiag::model
