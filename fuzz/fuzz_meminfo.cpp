// libFuzzer target: /proc/meminfo parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/procfs/meminfo.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto info = ftdiag::parse::parse_meminfo(text);
  // Byte values come from "N kB", so each is a whole number of KiB.
  if (info && info->mem_total && *info->mem_total % 1024 != 0) __builtin_trap();
  return 0;
}
