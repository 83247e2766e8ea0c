// libFuzzer target: JSON configuration files flattened to dotted keys.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "parse/configs/json_settings.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto settings = ftdiag::parse::flatten_json_settings(text);
  if (settings) {
    if (settings->size() > ftdiag::parse::kMaxJsonSettingsKeys) __builtin_trap();
    return 0;
  }
  // Every refusal is unparseable, and its detail is printable ASCII: it ends
  // up in JSON documents, which must stay valid UTF-8.
  if (settings.missing().reason != ftdiag::MissingReason::unparseable) __builtin_trap();
  for (char c : settings.missing().detail) {
    if (c < 0x20 || c >= 0x7f) __builtin_trap();
  }
  return 0;
}
