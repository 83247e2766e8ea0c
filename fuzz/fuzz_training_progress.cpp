// Step counters from arbitrary lines: the reader must never crash, and a
// counter it returns must be digits the line holds.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "parse/logs/training_progress.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const auto steps = ftdiag::parse::training_steps_done(line);
  if (steps && line.find(std::to_string(*steps)) == std::string_view::npos) __builtin_trap();
  return 0;
}
