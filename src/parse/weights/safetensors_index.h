// model.safetensors.index.json: which shard of a sharded model holds each
// tensor (its "weight_map").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::parse {

// The largest models ship a few hundred shards.
inline constexpr std::size_t kMaxWeightShards = 10000;

// The index's weight_map grouped by shard: "model-00001-of-00002.safetensors"
// -> the tensors it holds. Pure. Missing(unparseable) when the text is not
// JSON with a non-empty "weight_map" of strings, a shard's name is not a
// plain file name in the same folder, or it names over kMaxWeightShards shards.
using SafetensorsIndex = std::map<std::string, std::vector<std::string>>;
Fact<SafetensorsIndex> parse_safetensors_index(std::string_view text);

}  // namespace ftdiag::parse
