// Crash records (probes/crash/) from arbitrary bytes: a record is written by
// a dying process and may be cut anywhere or damaged; the reader must never
// crash and never keep more than its bounds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/probes/crash_record.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string why_not;
  if (auto record = ftdiag::parse::parse_crash_record(text, &why_not)) {
    if (record->frames.size() > 4096 || record->problems.size() > 23) __builtin_trap();
    for (const auto& entry : record->maps) {
      if (entry.end < entry.start) __builtin_trap();
    }
  } else if (why_not.empty()) {
    __builtin_trap();
  }
  return 0;
}
