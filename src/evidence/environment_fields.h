// The field tables (fields.h) of the environment (model/environment.h): the
// GPUs, the Python installation and the host's settings. The GPU probe
// prints the same keys (docs/probes.md); docs/evidence.md documents them.
#pragma once

#include "evidence/fields.h"
#include "model/environment.h"

namespace ftdiag::evidence {

template <>
struct Fields<model::GpuProcessUse> {
  using T = model::GpuProcessUse;
  static constexpr auto list = std::tuple{field("pid", &T::pid, required), field("used_bytes", &T::used)};
};

template <>
struct Fields<model::GpuDevice> {
  using T = model::GpuDevice;
  static constexpr auto list = std::tuple{
      field("index", &T::index, required),
      field("name", &T::name),
      field("uuid", &T::uuid),
      field("pci_bus_id", &T::pci_bus_id),
      field("compute_capability", &T::compute_capability),
      field("memory_total_bytes", &T::memory_total),
      field("memory_used_bytes", &T::memory_used),
      field("ecc_uncorrected", &T::ecc_uncorrected),
      field("ecc_corrected", &T::ecc_corrected),
      field("processes", &T::processes)};
};

template <>
struct Fields<model::GpuInventory> {
  using T = model::GpuInventory;
  static constexpr auto list = std::tuple{
      field("command", &T::command),
      field("probed", &T::probed),
      field("libcuda", &T::libcuda),
      field("libnvml", &T::libnvml),
      field("cuda_driver_version", &T::cuda_driver_version),
      field("cuda_init_result", &T::cuda_init_result),
      field("driver_version", &T::driver_version),
      field("devices", &T::devices),
      field("problems", &T::problems)};
};

template <>
struct Fields<model::GpuDeviceUse> {
  using T = model::GpuDeviceUse;
  static constexpr auto list = std::tuple{field("index", &T::index, required), field("memory_used_bytes", &T::used),
                                          field("processes", &T::processes)};
};

template <>
struct Fields<model::GpuMemorySample> {
  using T = model::GpuMemorySample;
  static constexpr auto list = std::tuple{field("time", &T::time, required), field("devices", &T::devices)};
};

template <>
struct Fields<model::PythonPackage> {
  using T = model::PythonPackage;
  static constexpr auto list = std::tuple{field("name", &T::name, required), field("version", &T::version),
                                          field("location", &T::location), field("build", &T::build)};
};

template <>
struct Fields<model::NativeLibrary> {
  using T = model::NativeLibrary;
  static constexpr auto list = std::tuple{field("path", &T::path, required), field("package", &T::package),
                                          field("needed", &T::needed)};
};

template <>
struct Fields<model::LibraryPathEntry> {
  using T = model::LibraryPathEntry;
  static constexpr auto list = std::tuple{field("directory", &T::directory, required), field("provides", &T::provides)};
};

template <>
struct Fields<model::PythonEnvironment> {
  using T = model::PythonEnvironment;
  static constexpr auto list = std::tuple{
      field("command", &T::command),
      field("read", &T::read),
      field("interpreter", &T::interpreter),
      field("found_by", &T::found_by),
      field("version", &T::version),
      field("sys_path", &T::sys_path),
      field("packages", &T::packages),
      field("libraries", &T::libraries),
      field("ld_library_path", &T::ld_library_path),
      field("problems", &T::problems)};
};

template <>
struct Fields<model::ResourceLimit> {
  using T = model::ResourceLimit;
  static constexpr auto list = std::tuple{field("soft", &T::soft), field("hard", &T::hard)};
};

template <>
struct Fields<model::SystemSettings> {
  using T = model::SystemSettings;
  static constexpr auto list = std::tuple{
      field("mem_total_bytes", &T::mem_total),
      field("mem_available_bytes", &T::mem_available),
      field("swap_total_bytes", &T::swap_total),
      field("cgroup_limit_bytes", &T::cgroup_limit),
      field("cgroup", &T::cgroup),
      field("shm_total_bytes", &T::shm_total),
      field("shm_available_bytes", &T::shm_available),
      field("memlock", &T::memlock),
      field("nofile", &T::nofile),
      field("core", &T::core),
      field("dmesg_restrict", &T::dmesg_restrict),
      field("kernel_log_readable", &T::kernel_log_readable),
      field("core_pattern", &T::core_pattern),
      field("oom_daemons", &T::oom_daemons),
      field("cpu_count", &T::cpu_count),
      field("as_root", &T::as_root)};
};

}  // namespace ftdiag::evidence
