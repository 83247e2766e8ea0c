// libFuzzer target: the start of a safetensors file (8 length bytes, the
// header JSON), as model_weights reads it from every shard.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "parse/weights/safetensors_header.h"

namespace {

void check(const ftdiag::Fact<ftdiag::parse::SafetensorsHeader>& header) {
  if (!header) {
    // Every refusal is unparseable, its detail printable ASCII: it ends up in
    // JSON documents, which must stay valid UTF-8.
    if (header.missing().reason != ftdiag::MissingReason::unparseable) __builtin_trap();
    for (char c : header.missing().detail) {
      if (c < 0x20 || c >= 0x7f) __builtin_trap();
    }
    return;
  }
  // An accepted header tiles its data section from byte 0, in order.
  std::uint64_t position = 0;
  for (const auto& tensor : header->tensors) {
    if (tensor.begin != position || tensor.end < tensor.begin) __builtin_trap();
    position = tensor.end;
  }
  if (position != header->data_bytes) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // As a reader sees it with the file's size (the input is the whole file),
  // and as a caller that knows only the start.
  check(ftdiag::parse::parse_safetensors_start(bytes, size));
  check(ftdiag::parse::parse_safetensors_start(bytes, std::nullopt));
  if (size >= 8) check(ftdiag::parse::parse_safetensors_header(bytes.substr(8), std::nullopt));
  return 0;
}
