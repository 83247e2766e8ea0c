// A local model's weights summarised from their safetensors headers alone
// (parse/weights/safetensors_summary.h says what the summary holds): the
// files found as transformers finds them, and of each only its header read,
// so that a 140 GB model costs a few small reads per shard.
#pragma once

#include <cstddef>
#include <filesystem>

#include "base/fact.h"
#include "parse/configs/dotted_settings.h"
#include "parse/weights/safetensors_header.h"

namespace ftdiag::collect {

// Bounds: an index of ~100k tensor names is a few MiB (the shards' own bound
// is parse::kMaxWeightShards).
inline constexpr std::size_t kMaxWeightIndexBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxWeightFolderEntries = 100000;
// The tensors of one model's files together (the largest models hold ~100k).
inline constexpr std::size_t kMaxWeightTensors = 500000;

// One file's header: pread of its 8 length bytes and N header bytes, sized
// against the file's length (fstat). Missing with errno's reason when it
// cannot be opened (not_present, permission_denied); unparseable, the path
// first in the detail, when it is not a regular file, not safetensors, or
// truncated.
Fact<parse::SafetensorsHeader> read_safetensors_header(const std::filesystem::path& file);

// The summary of model, a folder (or one .safetensors file). In a folder, as
// transformers looks: model.safetensors; else model.safetensors.index.json
// and every shard it names (each header read, each shard checked to hold the
// tensors the index places in it); else every *.safetensors but a LoRA
// adapter's. Missing, the file named in the detail:
//   not_present        no such folder; no safetensors weights (or only a
//                      LoRA adapter's); a shard the index names is absent
//   unsupported        only torch.save weights (pytorch_model.bin, *.pt):
//                      reading them means unpickling, which ftdiag does not
//                      do; config.json gives the shape instead
//   permission_denied  the folder or a file cannot be read
//   unparseable        a header or the index is damaged, a shard truncated,
//                      or a shard lacks tensors the index places in it
// Symbolic links to the files are followed (the Hugging Face cache is made
// of them).
Fact<parse::DottedSettings> read_model_weights(const std::filesystem::path& model);

}  // namespace ftdiag::collect
