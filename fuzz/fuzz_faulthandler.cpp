// faulthandler dumps from arbitrary bytes: the reader must never crash, and
// never keep more than its bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/logs/faulthandler.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const auto dumps = ftdiag::parse::read_faulthandler_dumps(std::string_view(reinterpret_cast<const char*>(data), size));
  for (const auto& dump : dumps) {
    if (dump.threads.size() > 256) __builtin_trap();
    for (const auto& thread : dump.threads) {
      if (thread.frames.size() > 128 || thread.native.size() > 128) __builtin_trap();
    }
  }
  return 0;
}
