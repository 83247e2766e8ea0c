// libFuzzer target: /proc/PID/mountinfo parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/procfs/mountinfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto mounts = ftdiag::parse::parse_mountinfo(text);
  // Unescaping only shrinks text, so no field can outgrow the input.
  if (mounts) {
    for (const auto& m : *mounts) {
      if (m.mount_point.size() > size || m.root.size() > size) __builtin_trap();
    }
  }
  return 0;
}
