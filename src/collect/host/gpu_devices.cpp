#include "collect/host/gpu_devices.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <system_error>

#include "base/ascii.h"
#include "base/text.h"

namespace ftdiag::collect {

namespace {

// "nvidia0", "nvidia15": a GPU's device file ("nvidiactl", "nvidia-uvm" are the driver's own).
bool is_gpu_device(std::string_view name) {
  if (!name.starts_with("nvidia") || name.size() == 6) return false;
  return std::all_of(name.begin() + 6, name.end(), [](char c) { return ascii::is_digit(c); });
}

// CUDA stops at the first entry it cannot use: a negative index, or an empty one.
std::size_t usable_entries(std::string_view list) {
  std::size_t count = 0;
  for (auto entry : text::split(list, ',')) {
    entry = text::trim(entry);
    if (entry.empty() || entry.front() == '-') break;
    ++count;
  }
  return count;
}

}  // namespace

std::size_t visible_nvidia_gpus(const SystemRoots& roots, const char* cuda_visible_devices) {
  std::size_t devices = 0;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(roots.path("/dev"), ec), end; !ec && it != end; it.increment(ec)) {
    devices += is_gpu_device(it->path().filename().string());
  }
  if (devices == 0 || cuda_visible_devices == nullptr) return devices;
  return std::min(devices, usable_entries(cuda_visible_devices));
}

}  // namespace ftdiag::collect
