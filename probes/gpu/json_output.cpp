#include "json_output.h"

#include <errno.h>
#include <unistd.h>

#include "json_writer.h"

namespace gpu_probe {

namespace {

void optional_count(JsonWriter& json, const char* key, const std::optional<unsigned long long>& value) {
  if (!value) return;
  json.key(key);
  json.unsigned_integer(*value);
}

void optional_text(JsonWriter& json, const char* key, const std::string& value) {
  if (value.empty()) return;
  json.key(key);
  json.string(value);
}

void processes(JsonWriter& json, const std::vector<ProcessUse>& uses) {
  json.key("processes");
  json.begin_array();
  for (const auto& use : uses) {
    json.begin_object();
    json.key("pid");
    json.unsigned_integer(use.pid);
    optional_count(json, "used_bytes", use.used_bytes);
    json.end_object();
  }
  json.end_array();
}

void device(JsonWriter& json, const Device& d) {
  json.begin_object();
  json.key("index");
  json.integer(d.index);
  optional_text(json, "name", d.name);
  optional_text(json, "uuid", d.uuid);
  optional_text(json, "pci_bus_id", d.pci_bus_id);
  optional_text(json, "compute_capability", d.compute_capability);
  optional_count(json, "memory_total_bytes", d.memory_total_bytes);
  optional_count(json, "memory_used_bytes", d.memory_used_bytes);
  optional_count(json, "ecc_uncorrected", d.ecc_uncorrected);
  optional_count(json, "ecc_corrected", d.ecc_corrected);
  processes(json, d.processes);
  json.end_object();
}

}  // namespace

std::string inventory_json(const Inventory& inventory) {
  JsonWriter json;
  json.begin_object();
  json.key("libcuda");
  json.string(inventory.libcuda);
  json.key("libnvml");
  json.string(inventory.libnvml);
  if (inventory.cuda_driver_version) {
    json.key("cuda_driver_version");
    json.integer(*inventory.cuda_driver_version);
  }
  if (inventory.cuda_init_result) {
    json.key("cuda_init_result");
    json.integer(*inventory.cuda_init_result);
  }
  json.key("driver_version");
  json.string(inventory.driver_version);
  json.key("devices");
  json.begin_array();
  for (const auto& d : inventory.devices) device(json, d);
  json.end_array();
  json.key("problems");
  json.begin_array();
  for (const auto& problem : inventory.problems) json.string(problem);
  json.end_array();
  json.end_object();
  return json.text();
}

std::string sample_json(double time, const std::vector<SampleDevice>& devices) {
  JsonWriter json;
  json.begin_object();
  json.key("time");
  json.real(time, 6);
  json.key("devices");
  json.begin_array();
  for (const auto& d : devices) {
    json.begin_object();
    json.key("index");
    json.integer(d.index);
    optional_count(json, "memory_used_bytes", d.memory_used_bytes);
    processes(json, d.processes);
    json.end_object();
  }
  json.end_array();
  json.end_object();
  return json.text();
}

bool print_line(const std::string& json) {
  const std::string line = json + "\n";
  std::size_t written = 0;
  while (written < line.size()) {
    const ssize_t n = ::write(1, line.data() + written, line.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    written += static_cast<std::size_t>(n);
  }
  return true;
}

}  // namespace gpu_probe
