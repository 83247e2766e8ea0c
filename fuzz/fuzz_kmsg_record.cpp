// libFuzzer target: one /dev/kmsg record.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/kernel/kernel_log.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view record(reinterpret_cast<const char*>(data), size);
  auto line = ftdiag::parse::decode_kmsg_record(record);
  // Unescaping only shrinks; a decoded record has its stamp and no NUL.
  if (line && (line->message.size() > size || !line->stamp.sequence || !line->stamp.level ||
               line->message.find('\0') != std::string::npos)) {
    __builtin_trap();
  }
  return 0;
}
