// Whether a file of weights or optimizer state was written to its end,
// read from its header and tail only (never the tensors: a shard is GiBs).
//
//   *.safetensors   8 bytes (little-endian header length) + a JSON header
//                   whose data_offsets say where the last tensor ends: a
//                   file shorter than 8 + header + that end was cut.
//   *.bin, *.pt, *.pth written by torch.save (a zip archive since torch 1.6):
//                   the zip's end-of-central-directory record is written
//                   last; a file without it in its last 64 KiB was cut.
//                   (The legacy pickle format has no such mark: not judged.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"

namespace ftdiag::collect {

// A safetensors header larger than this is not plausible (the format's own
// reader refuses 100 MB); the data-end check reads headers up to it.
inline constexpr std::uint64_t kMaxSafetensorsHeaderBytes = std::uint64_t{100} << 20;

// Pure: the byte where the tensors' data ends, counted from the end of the
// header (the largest data_offsets end). Missing(unparseable) when the
// header is not a safetensors header.
Fact<std::uint64_t> safetensors_data_end(std::string_view header_json);

// Pure: whether the tail of a zip archive holds its end record.
bool zip_tail_has_end_record(std::string_view tail);

// Why the file at path is not whole (empty, truncated, unreadable), or
// nullopt when it is whole or its format cannot tell. size is its size as
// listed.
std::optional<std::string> weight_file_problem(const std::filesystem::path& path, std::uint64_t size);

}  // namespace ftdiag::collect
