// Facts about the environment a job ran in (or will run in, for preflight):
// the GPUs and driver, torch's build and its extensions' builds, where the
// loader looks first, and the host's settings. Extraction computes (majors,
// the runtime an extension links against torch's), the rules judge; the
// driver-per-toolkit numbers come from data tables (rules/cuda-drivers.json).
#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "facts/extract.h"
#include "facts/reported_environment.h"
#include "facts/version_order.h"

namespace ftdiag::facts {

namespace {

using evidence::EvidenceDocument;
using evidence::HostEvidence;

// The host whose environment speaks for the job: the incident's, else the
// first host that has any environment evidence.
std::optional<std::size_t> environment_host(const EvidenceDocument& document, const std::optional<Incident>& incident) {
  if (incident && incident->run && incident->run->host < document.hosts.size()) return incident->run->host;
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    const auto& host = document.hosts[h];
    if (host.gpu || host.python || host.system || !host.reported.empty()) return h;
  }
  if (!document.hosts.empty()) return 0;
  return std::nullopt;
}

// "12.8.57" -> "12.8"; "2.7.0+cu128" -> "2.7".
std::string major_minor(std::string_view version) {
  const auto plus = version.find('+');
  if (plus != std::string_view::npos) version = version.substr(0, plus);
  const auto first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  const auto second = version.find('.', first + 1);
  return std::string(version.substr(0, second));
}

std::optional<std::int64_t> major_of(std::string_view version) {
  if (version.empty() || version[0] < '0' || version[0] > '9') return std::nullopt;
  return std::strtoll(std::string(version).c_str(), nullptr, 10);
}

// "libcudart.so.11.0" -> 11; nullopt for anything else.
std::optional<std::int64_t> cudart_major(std::string_view soname) {
  constexpr std::string_view kPrefix = "libcudart.so.";
  if (soname.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  return major_of(soname.substr(kPrefix.size()));
}

bool is_libtorch(std::string_view name) {
  return name.starts_with("libtorch") || name.starts_with("libc10");
}

void gpu_facts(const HostEvidence& host, const std::string& at, FactSet& facts) {
  if (!host.gpu) return;
  const auto& gpu = host.gpu.value();
  const std::string here = at + "/gpu";
  if (gpu.probed) {
    facts.set("gpu.probe_ok", true, here + "/probed");
  } else {
    facts.set("gpu.probe_failure", gpu.probed.missing().detail, here + "/probed");
    // Ran and did not answer (a crash or a hang of the driver), as opposed to
    // never run (no probe installed, --no-gpu): only the first is a finding.
    if (gpu.probed.missing().reason != MissingReason::not_present) facts.set("gpu.probe_ok", false, here + "/probed");
  }
  if (gpu.cuda_driver_version) {
    const int v = *gpu.cuda_driver_version;
    facts.set("gpu.driver_cuda_version", fmt::format("{}.{}", v / 1000, (v % 1000) / 10), here + "/cuda_driver_version");
    facts.set("gpu.driver_cuda_major", std::int64_t{v / 1000}, here + "/cuda_driver_version");
  }
  if (gpu.cuda_init_result) facts.set("gpu.cuda_init_result", std::int64_t{*gpu.cuda_init_result}, here + "/cuda_init_result");
  if (!gpu.driver_version.empty()) facts.set("gpu.driver_version", gpu.driver_version, here + "/driver_version");
  if (!gpu.probed) return;  // no device list to count from
  facts.set("gpu.count", static_cast<std::int64_t>(gpu.devices.size()), here + "/devices");
  if (gpu.devices.empty()) return;
  facts.set("gpu.name", gpu.devices.front().name, here + "/devices/0/name");
  std::string lowest;
  std::size_t lowest_at = 0;
  std::uint64_t ecc = 0, memory = 0;
  bool ecc_known = false, memory_known = !gpu.devices.empty();
  for (std::size_t i = 0; i < gpu.devices.size(); ++i) {
    const auto& d = gpu.devices[i];
    if (!d.compute_capability.empty() && (lowest.empty() || compare_versions(d.compute_capability, lowest) < 0)) {
      lowest = d.compute_capability;
      lowest_at = i;
    }
    if (d.ecc_uncorrected) {
      ecc += *d.ecc_uncorrected;
      ecc_known = true;
    }
    if (d.memory_total) memory += *d.memory_total;
    else memory_known = false;
  }
  if (!lowest.empty()) facts.set("gpu.compute_capability", lowest, fmt::format("{}/devices/{}/compute_capability", here, lowest_at));
  if (ecc_known) facts.set("gpu.ecc_uncorrected", static_cast<std::int64_t>(ecc), here + "/devices");
  if (memory_known) facts.set("gpu.memory_total_bytes", static_cast<std::int64_t>(memory), here + "/devices");
}

// Host memory a job may use (the node's RAM, or its cgroup's limit when
// lower) over all the GPUs' memory: saves and loads stage on the host.
void host_to_gpu_memory(const HostEvidence& host, const std::string& at, FactSet& facts) {
  const auto& gpu_memory = facts.get("gpu.memory_total_bytes").value;
  if (!host.system || !gpu_memory || !host.system.value().mem_total) return;
  const auto& system = host.system.value();
  double ram = static_cast<double>(system.mem_total.value());
  if (system.cgroup_limit && system.cgroup_limit.value()) ram = std::min(ram, static_cast<double>(*system.cgroup_limit.value()));
  const double gpus = as_number(gpu_memory.value());
  if (gpus > 0) facts.set("host.ram_to_gpu_memory_ratio", ram / gpus, at + "/system/mem_total_bytes");
}

const model::PythonPackage* find_package(const model::PythonEnvironment& python, std::string_view name, std::size_t* index = nullptr) {
  for (std::size_t i = 0; i < python.packages.size(); ++i) {
    if (python.packages[i].name == name) {
      if (index) *index = i;
      return &python.packages[i];
    }
  }
  return nullptr;
}

std::string build_value(const model::PythonPackage& package, const std::string& key) {
  auto it = package.build.find(key);
  return it == package.build.end() ? std::string() : it->second;
}

void torch_facts(const model::PythonEnvironment& python, const std::string& at, FactSet& facts) {
  std::size_t index = 0;
  const auto* torch = find_package(python, "torch", &index);
  if (!torch) {
    if (python.read.has_value()) facts.set_missing("torch.version", {MissingReason::not_present, "torch is not installed for this interpreter"});
    return;
  }
  const std::string here = fmt::format("{}/packages/{}", at, index);
  facts.set("torch.version", torch->version, here + "/version");
  facts.set("torch.location", torch->location, here + "/location");
  if (!torch->version.empty()) facts.set("torch.release", major_minor(torch->version), here + "/version");
  if (const auto plus = torch->version.find('+'); plus != std::string::npos) {
    facts.set("torch.build_tag", torch->version.substr(plus + 1), here + "/version");
  }
  const std::string cuda = build_value(*torch, "cuda");
  if (!cuda.empty()) {
    facts.set("torch.cuda_version", cuda, here + "/build/cuda");
    if (auto major = major_of(cuda)) facts.set("torch.cuda_major", *major, here + "/build/cuda");
  }
  const bool cpu_only = build_value(*torch, "cpu_only") == "true";
  if (cpu_only || !cuda.empty()) facts.set("torch.cpu_only", cpu_only, here + "/build");
  for (const char* runtime : {"nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime-cu11", "nvidia-cuda-runtime"}) {
    std::size_t wheel_at = 0;
    if (const auto* wheel = find_package(python, runtime, &wheel_at); wheel && !wheel->version.empty()) {
      facts.set("cuda.runtime_wheel_version", wheel->version, fmt::format("{}/packages/{}/version", at, wheel_at));
      break;
    }
  }
}

void extension_facts(const model::PythonEnvironment& python, const std::string& at, FactSet& facts) {
  std::size_t index = 0;
  if (const auto* ds = find_package(python, "deepspeed", &index)) {
    const std::string here = fmt::format("{}/packages/{}", at, index);
    facts.set("deepspeed.version", ds->version, here + "/version");
    if (auto v = build_value(*ds, "torch_version"); !v.empty() && looks_like_version(v)) facts.set("deepspeed.built_torch_release", major_minor(v), here + "/build/torch_version");
    if (auto v = build_value(*ds, "cuda_version"); !v.empty() && looks_like_version(v)) facts.set("deepspeed.built_cuda_version", v, here + "/build/cuda_version");
    if (ds->build.count("installed_ops")) facts.set("deepspeed.installed_ops", build_value(*ds, "installed_ops"), here + "/build/installed_ops");
  }
  const auto* torch = find_package(python, "torch");
  const std::string torch_cuda = torch ? build_value(*torch, "cuda") : std::string();
  if (const auto* bnb = find_package(python, "bitsandbytes", &index)) {
    const std::string here = fmt::format("{}/packages/{}", at, index);
    facts.set("bitsandbytes.version", bnb->version, here + "/version");
    if (bnb->build.count("cuda_libraries")) {
      const std::string libraries = build_value(*bnb, "cuda_libraries");
      facts.set("bitsandbytes.cuda_libraries", libraries, here + "/build/cuda_libraries");
      if (!torch_cuda.empty()) {
        // bitsandbytes names its libraries by CUDA major and minor: "121" for 12.1.
        std::string wanted = major_minor(torch_cuda);
        wanted.erase(std::remove(wanted.begin(), wanted.end(), '.'), wanted.end());
        bool found = false;
        for (std::size_t start = 0; start <= libraries.size();) {
          const auto comma = libraries.find(',', start);
          const auto item = libraries.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          found = found || item == wanted;
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        facts.set("bitsandbytes.has_torch_cuda_library", found, here + "/build/cuda_libraries");
      }
    }
  }
  // Extensions linking a CUDA runtime of another major than torch's: the
  // loader maps both, and the extension's kernels run against the wrong one.
  const auto torch_major = major_of(torch_cuda);
  std::int64_t foreign = 0;
  for (std::size_t i = 0; i < python.libraries.size() && torch_major; ++i) {
    const auto& library = python.libraries[i];
    if (library.package == "torch") continue;
    for (const auto& needed : library.needed) {
      const auto major = cudart_major(needed);
      if (!major || *major == *torch_major) continue;
      if (foreign++ == 0) {
        facts.set("ext.foreign_cuda_runtime",
                  // The file's name: a site-packages path would push the runtime out of a summary.
                  fmt::format("{} ({}) links {}", library.path.substr(library.path.rfind('/') + 1), library.package, needed),
                  fmt::format("{}/libraries/{}", at, i));
      }
      break;
    }
  }
  if (torch_major) facts.set("ext.foreign_cuda_runtime_count", foreign, at + "/libraries");
}

void library_path_facts(const model::PythonEnvironment& python, const std::string& at, FactSet& facts) {
  for (std::size_t i = 0; i < python.ld_library_path.size(); ++i) {
    const auto& entry = python.ld_library_path[i];
    const std::string here = fmt::format("{}/ld_library_path/{}", at, i);
    for (const auto& provided : entry.provides) {
      if (is_libtorch(provided) && !facts.get("ld.library_path_torch").value) {
        facts.set("ld.library_path_torch", fmt::format("{} ({})", entry.directory, provided), here);
      }
      if (auto major = cudart_major(provided); major && !facts.get("ld.library_path_cudart").value) {
        facts.set("ld.library_path_cudart", fmt::format("{} ({})", entry.directory, provided), here);
        facts.set("ld.library_path_cudart_major", *major, here);
      }
    }
  }
}

void python_facts(const HostEvidence& host, const std::string& at, FactSet& facts) {
  if (!host.python) return;
  const auto& python = host.python.value();
  const std::string here = at + "/python";
  facts.set("python.read", python.read.has_value(), here + "/read");
  if (!python.interpreter.empty()) {
    facts.set("python.interpreter", python.found_by.empty() ? python.interpreter : fmt::format("{} ({})", python.interpreter, python.found_by),
              here + "/interpreter");
  }
  if (looks_like_version(python.version)) facts.set("python.version", python.version, here + "/version");
  torch_facts(python, here, facts);
  extension_facts(python, here, facts);
  library_path_facts(python, here, facts);
}

template <class T>
void set_bytes(FactSet& facts, const char* name, const Fact<T>& value, const std::string& pointer) {
  if (value) facts.set(name, static_cast<std::int64_t>(value.value()), pointer);
  else facts.set_missing(name, value.missing());
}

void system_facts(const HostEvidence& host, const std::string& at, FactSet& facts) {
  if (!host.system) return;
  const auto& system = host.system.value();
  const std::string here = at + "/system";
  set_bytes(facts, "host.mem_total_bytes", system.mem_total, here + "/mem_total_bytes");
  set_bytes(facts, "host.swap_total_bytes", system.swap_total, here + "/swap_total_bytes");
  set_bytes(facts, "host.shm_total_bytes", system.shm_total, here + "/shm_total_bytes");
  set_bytes(facts, "host.shm_available_bytes", system.shm_available, here + "/shm_available_bytes");
  if (system.cgroup_limit && system.cgroup_limit.value()) {
    const auto limit = *system.cgroup_limit.value();
    facts.set("host.cgroup_limit_bytes", static_cast<std::int64_t>(limit), here + "/cgroup_limit_bytes");
    if (system.mem_total && system.mem_total.value() > 0) {
      facts.set("host.cgroup_limit_ratio", static_cast<double>(limit) / static_cast<double>(system.mem_total.value()), here + "/cgroup_limit_bytes");
    }
  } else if (system.cgroup_limit) {
    facts.set_missing("host.cgroup_limit_bytes", {MissingReason::not_present, "the cgroup has no memory limit"});
  }
  if (system.memlock) {
    const auto& limit = system.memlock.value();
    facts.set("host.memlock_unlimited", !limit.soft.has_value(), here + "/memlock");
    if (limit.soft) facts.set("host.memlock_bytes", static_cast<std::int64_t>(*limit.soft), here + "/memlock/soft");
  }
  if (system.nofile && system.nofile.value().soft) {
    facts.set("host.nofile", static_cast<std::int64_t>(*system.nofile.value().soft), here + "/nofile/soft");
  }
  if (system.core && system.core.value().soft) {
    facts.set("host.core_bytes", static_cast<std::int64_t>(*system.core.value().soft), here + "/core/soft");
  }
  if (system.core_pattern) {
    facts.set("host.core_pattern", system.core_pattern.value(), here + "/core_pattern");
    facts.set("host.core_piped", system.core_pattern.value().starts_with("|"), here + "/core_pattern");
  }
  if (system.dmesg_restrict) facts.set("host.dmesg_restrict", std::int64_t{system.dmesg_restrict.value()}, here + "/dmesg_restrict");
  if (system.kernel_log_readable) facts.set("host.kernel_log_readable", system.kernel_log_readable.value(), here + "/kernel_log_readable");
  facts.set("host.as_root", system.as_root, here + "/as_root");
  if (system.oom_daemons) {
    const auto& daemons = system.oom_daemons.value();
    facts.set("host.oom_daemons", daemons.empty() ? std::string("none") : fmt::format("{}", fmt::join(daemons, ", ")), here + "/oom_daemons");
  }
}

// GPU memory sampled during the runs: the highest use of any one GPU.
void gpu_sample_facts(const EvidenceDocument& document, std::size_t host_index, FactSet& facts) {
  const auto& host = document.hosts[host_index];
  std::uint64_t peak = 0;
  std::string pointer;
  model::Bytes total = 0;  // the peak GPU's memory; 0 when unknown
  for (std::size_t r = 0; r < host.runs.size(); ++r) {
    const auto& samples = host.runs[r].gpu_samples;
    for (std::size_t s = 0; s < samples.size(); ++s) {
      for (const auto& device : samples[s].devices) {
        if (!device.used || *device.used <= peak) continue;
        peak = *device.used;
        pointer = fmt::format("/hosts/{}/runs/{}/gpu_samples/{}", host_index, r, s);
        total = 0;
        if (host.gpu) {
          for (const auto& d : host.gpu.value().devices) {
            if (d.index == device.index && d.memory_total) total = *d.memory_total;
          }
        }
      }
    }
  }
  if (pointer.empty()) return;
  facts.set("gpu.memory_peak_bytes", static_cast<std::int64_t>(peak), pointer);
  if (total > 0) facts.set("gpu.memory_peak_ratio", static_cast<double>(peak) / static_cast<double>(total), pointer);
}

}  // namespace

void extract_environment_facts(const EvidenceDocument& document, const std::optional<Incident>& incident, FactSet& facts) {
  const auto host_index = environment_host(document, incident);
  if (!host_index) return;
  const auto& host = document.hosts[*host_index];
  const std::string at = fmt::format("/hosts/{}", *host_index);
  gpu_facts(host, at, facts);
  python_facts(host, at, facts);
  system_facts(host, at, facts);
  host_to_gpu_memory(host, at, facts);
  reported_environment_facts(host, at, facts);
  gpu_sample_facts(document, *host_index, facts);
}

}  // namespace ftdiag::facts
