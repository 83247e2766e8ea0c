#include "facts/reported_environment.h"

#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "facts/version_order.h"

namespace ftdiag::facts {

namespace {

using evidence::HostEvidence;

// The first value a report stated for `key`, and its pointer.
struct Stated {
  std::string value;
  std::string pointer;
};

class Reported {
 public:
  Reported(const HostEvidence& host, const std::string& at) : host_(host), at_(at) {}

  std::optional<Stated> first(std::string_view key) const {
    for (std::size_t i = 0; i < host_.reported.size(); ++i) {
      if (host_.reported[i].key == key) return Stated{host_.reported[i].value, fmt::format("{}/reported/{}/value", at_, i)};
    }
    return std::nullopt;
  }

  // Sets a fact nothing set before; true when it did.
  bool fill(FactSet& facts, const std::string& name, FactValue value, const std::string& pointer) const {
    if (facts.get(name).value) return false;
    facts.set(name, std::move(value), pointer);
    used_ = true;
    return true;
  }

  bool fill_text(FactSet& facts, const std::string& name, std::string_view key) const {
    const auto stated = first(key);
    return stated && fill(facts, name, stated->value, stated->pointer);
  }

  bool fill_version(FactSet& facts, const std::string& name, std::string_view key) const {
    const auto stated = first(key);
    return stated && looks_like_version(stated->value) && fill(facts, name, stated->value, stated->pointer);
  }

  bool fill_integer(FactSet& facts, const std::string& name, std::string_view key) const {
    const auto stated = first(key);
    if (!stated) return false;
    char* end = nullptr;
    const long long number = std::strtoll(stated->value.c_str(), &end, 10);
    if (stated->value.empty() || *end != '\0' || number < 0) return false;
    return fill(facts, name, std::int64_t{number}, stated->pointer);
  }

  bool used() const { return used_; }

 private:
  const HostEvidence& host_;
  std::string at_;
  mutable bool used_ = false;
};

// "12.8.57" -> "12.8"; "2.7.0+cu128" -> "2.7".
std::string major_minor(std::string_view version) {
  version = version.substr(0, version.find('+'));
  const auto first = version.find('.');
  if (first == std::string_view::npos) return std::string(version);
  return std::string(version.substr(0, version.find('.', first + 1)));
}

std::optional<std::int64_t> major_of(std::string_view version) {
  if (version.empty() || version[0] < '0' || version[0] > '9') return std::nullopt;
  return std::strtoll(std::string(version).c_str(), nullptr, 10);
}

// torch's local tag names its CUDA: "cu121" is 12.1, "cu92" 9.2.
std::string cuda_of_build_tag(std::string_view tag) {
  if (!tag.starts_with("cu") || tag.size() < 4 || tag.size() > 5) return {};
  const auto digits = tag.substr(2);
  for (char c : digits) {
    if (c < '0' || c > '9') return {};
  }
  return fmt::format("{}.{}", digits.substr(0, digits.size() - 1), digits.back());
}

void torch_facts(const Reported& reported, FactSet& facts) {
  if (const auto torch = reported.first("package.torch"); torch && looks_like_version(torch->value)) {
    reported.fill(facts, "torch.version", torch->value, torch->pointer);
    reported.fill(facts, "torch.release", major_minor(torch->value), torch->pointer);
    if (const auto plus = torch->value.find('+'); plus != std::string::npos) {
      const std::string tag = torch->value.substr(plus + 1);
      reported.fill(facts, "torch.build_tag", tag, torch->pointer);
      if (tag == "cpu") reported.fill(facts, "torch.cpu_only", true, torch->pointer);
      if (const auto cuda = cuda_of_build_tag(tag); !cuda.empty()) reported.fill(facts, "torch.cuda_version", cuda, torch->pointer);
    }
  }
  reported.fill_version(facts, "torch.cuda_version", "torch.cuda_version");
  if (const auto& cuda = facts.get("torch.cuda_version"); cuda.value) {
    const std::string version = std::get<std::string>(cuda.value.value());
    if (auto major = major_of(version)) reported.fill(facts, "torch.cuda_major", *major, cuda.pointer);
    reported.fill(facts, "torch.cpu_only", false, cuda.pointer);
  }
  reported.fill_version(facts, "python.version", "python.version");
}

void extension_facts(const Reported& reported, FactSet& facts) {
  reported.fill_text(facts, "deepspeed.version", "package.deepspeed");
  if (const auto built = reported.first("deepspeed.built_torch_release"); built && looks_like_version(built->value)) {
    reported.fill(facts, "deepspeed.built_torch_release", major_minor(built->value), built->pointer);
  }
  reported.fill_version(facts, "deepspeed.built_cuda_version", "deepspeed.built_cuda_version");
  reported.fill_text(facts, "deepspeed.installed_ops", "deepspeed.installed_ops");
  reported.fill_text(facts, "bitsandbytes.version", "package.bitsandbytes");
}

// The GPUs' memory together, when the report listed every GPU it counted.
void gpu_memory_fact(const Reported& reported, FactSet& facts) {
  const auto& count = facts.get("gpu.count");
  if (!count.value) return;
  const auto gpus = std::get<std::int64_t>(count.value.value());
  std::int64_t total = 0;
  std::string pointer;
  for (std::int64_t i = 0; i < gpus; ++i) {
    const auto memory = reported.first(fmt::format("gpu.{}.memory_bytes", i));
    if (!memory) return;
    total += std::strtoll(memory->value.c_str(), nullptr, 10);
    if (pointer.empty()) pointer = memory->pointer;
  }
  if (gpus > 0) reported.fill(facts, "gpu.memory_total_bytes", total, pointer);
}

void gpu_facts(const Reported& reported, FactSet& facts) {
  reported.fill_version(facts, "gpu.driver_version", "gpu.driver_version");
  if (reported.fill_version(facts, "gpu.driver_cuda_version", "gpu.driver_cuda_version")) {
    const auto& cuda = facts.get("gpu.driver_cuda_version");
    if (auto major = major_of(std::get<std::string>(cuda.value.value()))) reported.fill(facts, "gpu.driver_cuda_major", *major, cuda.pointer);
  }
  reported.fill_integer(facts, "gpu.count", "gpu.count");
  reported.fill_text(facts, "gpu.name", "gpu.0.name");
  gpu_memory_fact(reported, facts);
}

void host_facts(const Reported& reported, FactSet& facts) {
  reported.fill_integer(facts, "host.mem_total_bytes", "host.mem_total_bytes");
  reported.fill_integer(facts, "host.swap_total_bytes", "host.swap_total_bytes");
  reported.fill_integer(facts, "host.shm_total_bytes", "host.shm_total_bytes");
}

// The node's RAM over the GPUs' memory, from reported sizes (without the
// host's settings there is no cgroup limit to take instead).
void ram_to_gpu_memory(const Reported& reported, FactSet& facts) {
  const auto& ram = facts.get("host.mem_total_bytes");
  const auto& gpus = facts.get("gpu.memory_total_bytes");
  if (!ram.value || !gpus.value || as_number(gpus.value.value()) <= 0) return;
  reported.fill(facts, "host.ram_to_gpu_memory_ratio", as_number(ram.value.value()) / as_number(gpus.value.value()), ram.pointer);
}

}  // namespace

void reported_environment_facts(const HostEvidence& host, const std::string& at, FactSet& facts) {
  const bool probed = host.gpu.has_value() || host.python.has_value() || host.system.has_value();
  const Reported reported(host, at);
  if (!host.gpu || !host.gpu.value().probed) gpu_facts(reported, facts);
  if (!host.python || !host.python.value().read) {
    torch_facts(reported, facts);
    extension_facts(reported, facts);
  }
  if (!host.system) {
    host_facts(reported, facts);
    ram_to_gpu_memory(reported, facts);
  }
  // The host's CUDA toolkit (nvcc): only reports say it.
  reported.fill_version(facts, "cuda.toolkit_version", "cuda.toolkit_version");
  if (probed || reported.used()) {
    facts.set("environment.source", std::string(probed ? (reported.used() ? "both" : "probe") : "report"), at);
  }
}

}  // namespace ftdiag::facts
