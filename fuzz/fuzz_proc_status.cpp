// libFuzzer target: /proc/PID/status parser.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "collect/proc_status.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto status = ftdiag::collect::parse_proc_status(text);
  // A successful parse must have read at least one known key, and a failure
  // must say it was not understood, never another reason.
  if (!status && status.missing().reason != ftdiag::MissingReason::unparseable) __builtin_trap();
  return 0;
}
