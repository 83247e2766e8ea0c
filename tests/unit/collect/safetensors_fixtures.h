// safetensors files built by hand, byte for byte as the format specifies and
// the safetensors library writes them: an 8-byte little-endian header
// length, the header JSON padded with spaces to a multiple of 8, then the
// tensors' bytes in header order. Files get their data as a hole
// (resize_file), so a tensor of real size costs no disk.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "collect/weights/safetensors_header.h"

namespace ftdiag::collect::testing {

struct TensorSpec {
  std::string name;
  std::string dtype;
  std::vector<std::uint64_t> shape;
};

inline std::uint64_t spec_bytes(const TensorSpec& tensor) {
  std::uint64_t elements = 1;
  for (auto dimension : tensor.shape) elements *= dimension;
  return elements * safetensors_dtype_bits(tensor.dtype) / 8;
}

inline std::uint64_t data_bytes_of(const std::vector<TensorSpec>& tensors) {
  std::uint64_t total = 0;
  for (const auto& tensor : tensors) total += spec_bytes(tensor);
  return total;
}

inline std::string length_prefix(std::uint64_t length) {
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[static_cast<std::size_t>(i)] = static_cast<char>((length >> (8 * i)) & 0xff);
  return prefix;
}

// The header JSON, tensors laid out one after another in the order given.
inline std::string header_json(const std::vector<TensorSpec>& tensors, std::string_view metadata = R"({"format":"pt"})") {
  std::vector<std::string> entries;
  if (!metadata.empty()) entries.push_back(fmt::format(R"("__metadata__":{})", metadata));
  std::uint64_t offset = 0;
  for (const auto& tensor : tensors) {
    const auto end = offset + spec_bytes(tensor);
    entries.push_back(fmt::format(R"("{}":{{"dtype":"{}","shape":[{}],"data_offsets":[{},{}]}})", tensor.name,
                                  tensor.dtype, fmt::join(tensor.shape, ","), offset, end));
    offset = end;
  }
  return fmt::format("{{{}}}", fmt::join(entries, ","));
}

// The 8 length bytes and the padded header: a file's start, its data not included.
inline std::string file_start(std::string header) {
  while (header.size() % 8 != 0) header += ' ';
  return length_prefix(header.size()) + header;
}

inline std::string file_start(const std::vector<TensorSpec>& tensors) { return file_start(header_json(tensors)); }

// Writes a whole file (zero data); cut_bytes leaves that many of its last bytes out.
inline void write_safetensors(const std::filesystem::path& file, const std::vector<TensorSpec>& tensors,
                              std::uint64_t cut_bytes = 0) {
  const std::string start = file_start(tensors);
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary) << start;
  std::filesystem::resize_file(file, start.size() + data_bytes_of(tensors) - cut_bytes);
}

}  // namespace ftdiag::collect::testing
