// libFuzzer target: /proc/PID/status parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/procfs/proc_status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto status = ftdiag::parse::parse_proc_status(text);
  // A pure parser's only failure is "not understood"; any other reason would
  // mean it consulted something besides its input.
  if (!status && status.missing().reason != ftdiag::MissingReason::unparseable) __builtin_trap();
  return 0;
}
