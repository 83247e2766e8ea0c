#include "parse/probes/gpu_probe_output.h"

#include <climits>
#include <string>

#include <nlohmann/json.hpp>

namespace ftdiag::parse {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxDocumentBytes = 8u << 20;
constexpr int kMaxNesting = 16;

// The document is ours, 5 levels deep; a deeper one is not, and is refused
// before nlohmann builds (and later destroys) a tree of that depth.
bool nesting_at_most(std::string_view text, int limit) {
  int depth = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      for (++i; i < text.size() && text[i] != '"'; ++i) {
        if (text[i] == '\\') ++i;  // an escape: skip what it escapes
      }
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return false;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return true;
}

// The fields of one JSON object, read by type. The first wrong one is kept
// (with its path) and every later read is refused, so a caller checks once.
class Fields {
 public:
  Fields(const json& object, std::string path, std::string& error)
      : object_(object), path_(std::move(path)), error_(error) {
    if (!object_.is_object()) fail("", "an object");
  }

  std::string text(const char* key) {
    const json* value = find(key);
    if (!value) return {};
    if (value->is_string()) return value->get<std::string>();
    fail(key, "a string");
    return {};
  }

  std::optional<std::uint64_t> count(const char* key) {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_number_unsigned()) return value->get<std::uint64_t>();
    fail(key, "a non-negative integer");
    return std::nullopt;
  }

  std::optional<int> integer(const char* key, long long min, long long max) {
    const json* value = find(key);
    if (!value) return std::nullopt;
    // Unsigned first: one past LLONG_MAX would wrap as a long long.
    bool in_range = false;
    if (value->is_number_unsigned()) {
      const auto number = value->get<std::uint64_t>();
      in_range = (min <= 0 || number >= static_cast<std::uint64_t>(min)) && number <= static_cast<std::uint64_t>(max);
    } else if (value->is_number_integer()) {
      const auto number = value->get<long long>();
      in_range = number >= min && number <= max;
    }
    if (in_range) return static_cast<int>(value->get<long long>());
    fail(key, "an integer in range");
    return std::nullopt;
  }

  std::optional<double> real(const char* key) {
    const json* value = find(key);
    if (!value) return std::nullopt;
    if (value->is_number()) return value->get<double>();
    fail(key, "a number");
    return std::nullopt;
  }

  // The array under `key`; null when absent or (an error) not an array.
  const json* array(const char* key) {
    const json* value = find(key);
    if (!value || value->is_array()) return value;
    fail(key, "an array");
    return nullptr;
  }

  // A key that must be there.
  bool require(const char* key) {
    if (ok() && !object_.contains(key)) fail(key, "present");
    return ok();
  }

  bool ok() const { return error_.empty(); }
  std::string path(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

 private:
  const json* find(const char* key) {
    if (!ok()) return nullptr;
    auto it = object_.find(key);
    return it == object_.end() ? nullptr : &*it;
  }

  void fail(const char* key, const char* expected) {
    if (ok()) error_ = (*key ? path(key) : (path_.empty() ? "the document" : path_)) + ": expected " + expected;
  }

  const json& object_;
  std::string path_;
  std::string& error_;
};

std::vector<model::GpuProcessUse> read_processes(Fields& fields, const std::string& path, std::size_t& budget,
                                                 std::string& error) {
  std::vector<model::GpuProcessUse> uses;
  const json* list = fields.array("processes");
  if (!list) return uses;
  if (list->size() > budget) {
    error = path + ".processes: more than " + std::to_string(kMaxGpuProcesses) + " processes in all";
    return uses;
  }
  budget -= list->size();
  for (std::size_t i = 0; i < list->size() && error.empty(); ++i) {
    Fields process((*list)[i], path + ".processes[" + std::to_string(i) + "]", error);
    if (!process.require("pid")) break;
    model::GpuProcessUse use;
    use.pid = process.integer("pid", 1, INT_MAX).value_or(0);
    use.used = process.count("used_bytes");
    uses.push_back(use);
  }
  return uses;
}

model::GpuDevice read_device(const json& value, const std::string& path, std::size_t& budget, std::string& error) {
  Fields fields(value, path, error);
  model::GpuDevice device;
  if (!fields.require("index")) return device;
  device.index = fields.integer("index", 0, INT_MAX).value_or(0);
  device.name = fields.text("name");
  device.uuid = fields.text("uuid");
  device.pci_bus_id = fields.text("pci_bus_id");
  device.compute_capability = fields.text("compute_capability");
  device.memory_total = fields.count("memory_total_bytes");
  device.memory_used = fields.count("memory_used_bytes");
  device.ecc_uncorrected = fields.count("ecc_uncorrected");
  device.ecc_corrected = fields.count("ecc_corrected");
  device.processes = read_processes(fields, path, budget, error);
  return device;
}

// Why `text` is refused before parsing; nullopt when it is not.
std::optional<std::string> out_of_bounds(std::string_view text) {
  if (text.size() > kMaxDocumentBytes) return "more than 8 MiB of output";
  if (!nesting_at_most(text, kMaxNesting)) return "nested deeper than the probe writes";
  return std::nullopt;
}

json parse(std::string_view text) {
  return json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
}

Fact<model::GpuInventory> probe_output_unparseable(std::string detail) {
  return Missing{MissingReason::unparseable, std::move(detail)};
}

}  // namespace

Fact<model::GpuInventory> parse_gpu_inventory(std::string_view json_text) {
  if (auto refused = out_of_bounds(json_text)) return probe_output_unparseable(*refused);
  const json root = parse(json_text);
  if (root.is_discarded()) return probe_output_unparseable("not a JSON document");
  std::string error;
  Fields fields(root, "", error);
  model::GpuInventory inventory;
  if (!fields.require("devices")) return probe_output_unparseable(error);
  inventory.probed = true;
  inventory.libcuda = fields.text("libcuda");
  inventory.libnvml = fields.text("libnvml");
  inventory.cuda_driver_version = fields.integer("cuda_driver_version", INT_MIN, INT_MAX);
  inventory.cuda_init_result = fields.integer("cuda_init_result", INT_MIN, INT_MAX);
  inventory.driver_version = fields.text("driver_version");
  const json* devices = fields.array("devices");
  if (devices && devices->size() > kMaxGpuDevices) return probe_output_unparseable("more than 64 devices");
  std::size_t budget = kMaxGpuProcesses;
  for (std::size_t i = 0; devices && i < devices->size() && error.empty(); ++i) {
    inventory.devices.push_back(read_device((*devices)[i], "devices[" + std::to_string(i) + "]", budget, error));
  }
  if (const json* problems = fields.array("problems")) {
    for (std::size_t i = 0; i < problems->size() && i < 256 && error.empty(); ++i) {
      if (!(*problems)[i].is_string()) error = "problems[" + std::to_string(i) + "]: expected a string";
      else inventory.problems.push_back((*problems)[i].get<std::string>());
    }
  }
  if (!error.empty()) return probe_output_unparseable(error);
  return inventory;
}

std::optional<model::GpuMemorySample> parse_gpu_sample_line(std::string_view line) {
  if (out_of_bounds(line)) return std::nullopt;
  const json root = parse(line);
  if (root.is_discarded()) return std::nullopt;
  std::string error;
  Fields fields(root, "", error);
  if (!fields.require("time") || !fields.require("devices")) return std::nullopt;
  model::GpuMemorySample sample;
  sample.time = fields.real("time").value_or(0);
  const json* devices = fields.array("devices");
  if (!devices || devices->size() > kMaxGpuDevices) return std::nullopt;
  std::size_t budget = kMaxGpuProcesses;
  for (std::size_t i = 0; i < devices->size() && error.empty(); ++i) {
    const std::string path = "devices[" + std::to_string(i) + "]";
    Fields device((*devices)[i], path, error);
    if (!device.require("index")) break;
    model::GpuDeviceUse use;
    use.index = device.integer("index", 0, INT_MAX).value_or(0);
    use.used = device.count("memory_used_bytes");
    use.processes = read_processes(device, path, budget, error);
    sample.devices.push_back(std::move(use));
  }
  if (!error.empty()) return std::nullopt;
  return sample;
}

}  // namespace ftdiag::parse
