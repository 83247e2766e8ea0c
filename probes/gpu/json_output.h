// The probe's two JSON documents (docs/probes.md, "The GPU probe"), each on
// one line: the inventory, and a --watch sample. ftdiag reads them back with
// collect/gpu_probe.h; a key whose value is unknown is left out.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "inventory.h"

namespace gpu_probe {

std::string inventory_json(const Inventory& inventory);

struct SampleDevice {
  int index = 0;  // the inventory's index of the device
  std::optional<unsigned long long> memory_used_bytes;
  std::vector<ProcessUse> processes;
};

// `time`: seconds since the epoch.
std::string sample_json(double time, const std::vector<SampleDevice>& devices);

// Writes `json` and a newline to stdout in one write(2): no stdio buffer, so
// each line reaches ftdiag whole as it is made. False when stdout is gone
// (EPIPE: SIGPIPE is ignored) or fails otherwise.
bool print_line(const std::string& json);

}  // namespace gpu_probe
