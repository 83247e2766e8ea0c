// /proc/PID/maps text from arbitrary bytes: every entry kept is a valid
// range, and the lookup of any address never reads outside the list.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "parse/probes/proc_maps.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto maps = ftdiag::parse::parse_maps(text);
  for (const auto& entry : maps) {
    if (entry.end < entry.start || entry.permissions.size() != 4) __builtin_trap();
  }
  std::uint64_t address = 0;
  std::memcpy(&address, data, std::min(size, sizeof address));
  if (const auto* hit = ftdiag::parse::mapping_of(maps, address); hit && !hit->holds(address)) __builtin_trap();
  return 0;
}
