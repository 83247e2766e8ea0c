// The header of a safetensors file, parsed and checked the way the
// safetensors library checks it before it loads a tensor
// (https://github.com/huggingface/safetensors, "Format"):
//
//   8 bytes   N, the header's length, an unsigned little-endian integer
//   N bytes   JSON: {"__metadata__": {"format": "pt"},
//                    "model.embed_tokens.weight": {"dtype": "BF16",
//                        "shape": [32000, 4096], "data_offsets": [0, 262144000]}, ...}
//             (padded with spaces to a multiple of 8)
//   the rest  the tensors' bytes; data_offsets count from here
//
// Pure: the reader (collect/weights/model_weights.h) reads the 8 + N bytes
// and hands them here, so a shard of many GiB costs two small reads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

inline constexpr std::size_t kSafetensorsLengthBytes = 8;
// The library's MAX_HEADER_SIZE: every reader refuses a longer header, so a
// longer length is damage, not a model.
inline constexpr std::uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;
// What ftdiag parses of one header, far above any model's (a shard's header
// is KiBs, the largest single-file models' a few MiB): parsing costs several
// times the text, and a 92 MB header of 1.3 million tensors would cost GiBs.
// A larger header is refused, the reason said.
inline constexpr std::uint64_t kSafetensorsMaxParsedHeaderBytes = std::uint64_t{32} << 20;
inline constexpr std::size_t kSafetensorsMaxTensors = 200'000;

struct SafetensorsTensor {
  std::string name;                  // "model.layers.0.self_attn.q_proj.weight"
  std::string dtype;                 // as written: "BF16", "F8_E4M3", or one this reader does not know
  std::vector<std::uint64_t> shape;  // [] for a scalar
  std::uint64_t elements = 0;        // the product of shape (1 for a scalar)
  std::uint64_t begin = 0;           // data_offsets: bytes from the start of the data section
  std::uint64_t end = 0;

  bool operator==(const SafetensorsTensor&) const = default;
};

struct SafetensorsHeader {
  std::vector<SafetensorsTensor> tensors;       // ordered by their place in the data section
  std::map<std::string, std::string> metadata;  // "__metadata__", e.g. "format" -> "pt"
  std::uint64_t data_bytes = 0;                 // the data section's size: where the last tensor ends
  // Tensors whose dtype this reader has no element size for (a dtype newer
  // than it): accepted, but their byte counts could not be checked.
  std::uint64_t unknown_dtype_tensors = 0;
};

// Bits per element of a safetensors dtype ("BF16" -> 16, "F4" -> 4, "BOOL"
// -> 8), 0 for a dtype this reader does not know.
unsigned safetensors_dtype_bits(std::string_view dtype);

// The header length N from a file's first 8 bytes. Missing(unparseable) when
// fewer than 8 bytes were given, or N is over kSafetensorsMaxHeaderBytes or
// too small for a JSON object; also when file_size is known and shorter than
// 8 + N (the file was cut inside its header).
Fact<std::uint64_t> parse_safetensors_length(std::string_view first_bytes, std::optional<std::uint64_t> file_size);

// The N bytes of header JSON. data_section_bytes is what the file holds after
// the header (its size - 8 - N), nullopt when unknown. Missing(unparseable),
// the detail naming the tensor at fault in printable ASCII, when:
//   - the JSON is malformed or not an object of objects, or nested deeper
//     than a header is;
//   - __metadata__ is not an object of strings;
//   - a tensor lacks a string dtype, a shape of whole numbers, or
//     data_offsets [begin, end] with begin <= end;
//   - a known dtype's shape needs another number of bytes than its offsets
//     span (or the product overflows);
//   - the tensors do not tile the data section from byte 0 without gaps or
//     overlaps, as the library requires;
//   - data_section_bytes is known and differs from where the last tensor
//     ends: shorter means truncated, longer is refused by the library too.
//   - the header is over kSafetensorsMaxParsedHeaderBytes or holds over
//     kSafetensorsMaxTensors tensors (ftdiag's bounds, not the format's);
//   - a tensor of an unknown dtype has more elements than 8 per byte its
//     data_offsets span (no dtype packs more): its count would be garbage.
// Never throws beyond allocation failure.
Fact<SafetensorsHeader> parse_safetensors_header(std::string_view json, std::optional<std::uint64_t> data_section_bytes);

// Both steps over the start of a file (the 8 length bytes and the header;
// the data may follow or not). file_size, when known, checks the data
// section's size as above.
Fact<SafetensorsHeader> parse_safetensors_start(std::string_view file_start, std::optional<std::uint64_t> file_size);

}  // namespace ftdiag::parse
