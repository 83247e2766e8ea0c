// libFuzzer target: the GPU probe's output read back (parse/probes/gpu_probe_output.h),
// the inventory document and the --watch sample lines, from the same bytes.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/probes/gpu_probe_output.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace ftdiag;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto inventory = parse::parse_gpu_inventory(text);
  // A pure parser's only failure is "not understood"; anything it accepts
  // is within its bounds.
  if (!inventory && inventory.missing().reason != MissingReason::unparseable) __builtin_trap();
  if (inventory) {
    std::size_t processes = 0;
    for (const auto& device : inventory->devices) processes += device.processes.size();
    if (inventory->devices.size() > parse::kMaxGpuDevices || processes > parse::kMaxGpuProcesses) __builtin_trap();
    if (!inventory->probed) __builtin_trap();
  }
  if (auto sample = parse::parse_gpu_sample_line(text)) {
    if (sample->devices.size() > parse::kMaxGpuDevices) __builtin_trap();
  }
  return 0;
}
