// libFuzzer target: kernel log in any rendering, split and scanned.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "parse/kernel/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lines = ftdiag::parse::split_kernel_log(text, {.year = 2026});
  for (const auto& line : lines) {
    // Lines are split on '\n' and '\r', and NUL reads as a space.
    if (line.message.find_first_of(std::string_view("\n\r\0", 3)) != std::string::npos) __builtin_trap();
    if (line.message.size() > 64 * 1024) __builtin_trap();
  }
  auto events = ftdiag::parse::scan_kernel_lines(lines);
  for (const auto& event : events) {
    if (const auto* kill = std::get_if<ftdiag::parse::OomKill>(&event); kill && kill->line_number == 0) __builtin_trap();
  }
  return 0;
}
