// Whether a file of weights or optimizer state was written to its end,
// read from its header and tail only (never the tensors: a shard is GiBs).
//
//   *.safetensors   8 bytes (little-endian header length) + a JSON header
//                   whose data_offsets say where the last tensor ends: a
//                   file shorter than 8 + header + that end was cut. The
//                   header is checked by parse/weights/safetensors_header.h,
//                   as the library checks it before loading.
//   *.bin, *.pt, *.pth written by torch.save (a zip archive since torch 1.6):
//                   the zip's end-of-central-directory record is written
//                   last; a file without it in its last 64 KiB was cut
//                   (parse/weights/zip_end_record.h).
//                   (The legacy pickle format has no such mark: not judged.)
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "base/fact.h"

namespace ftdiag::collect {

// Why the file at path is not whole (empty, truncated, unreadable), or
// nullopt when it is whole or its format cannot tell. size is its size as
// listed.
std::optional<std::string> weight_file_problem(const std::filesystem::path& path, std::uint64_t size);

}  // namespace ftdiag::collect
