// libFuzzer target: one fault line (segfault, traps, arm64, fatal signal).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/kernel/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view message(reinterpret_cast<const char*>(data), size);
  auto fault = ftdiag::parse::parse_fault_line(message);
  // What is read out of the line is never longer than the line.
  if (fault && (fault->comm.size() > size || fault->object.size() > size || fault->detail.size() > size)) {
    __builtin_trap();
  }
  return 0;
}
