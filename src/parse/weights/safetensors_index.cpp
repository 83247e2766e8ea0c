#include "parse/weights/safetensors_index.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {
namespace {

using json = nlohmann::json;

Missing index_unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }

// Whether JSON text nests deeper than limit (strings skipped). An index
// nests two levels; the DOM parser keeps a frame per level, so a hostile
// 64 MiB of '[' is refused before it is parsed.
bool nests_deeper_than(std::string_view text, int limit) {
  int depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      in_string = in_string && c != '"';
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > limit) return true;
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return false;
}

}  // namespace

Fact<SafetensorsIndex> parse_safetensors_index(std::string_view text) {
  if (nests_deeper_than(text, 16)) return index_unparseable("nested deeper than an index is");
  const auto root = json::parse(text.begin(), text.end(), nullptr, false);
  if (root.is_discarded()) return index_unparseable("not JSON");
  const auto map = root.is_object() ? root.find("weight_map") : root.end();
  if (map == root.end() || !map->is_object() || map->empty()) return index_unparseable("no \"weight_map\" of tensors to shards");
  SafetensorsIndex index;
  for (const auto& [tensor, shard] : map->items()) {
    if (!shard.is_string()) return index_unparseable(fmt::format("the shard of \"{}\" is not a file name", printable_excerpt(tensor)));
    const auto& file = shard.get_ref<const std::string&>();
    // A shard sits beside the index: a path elsewhere is not one.
    if (file.empty() || file == "." || file == ".." || file.find('/') != std::string::npos) {
      return index_unparseable(fmt::format("the shard \"{}\" is not a file name in the index's folder", printable_excerpt(file)));
    }
    index[file].push_back(tensor);
    if (index.size() > kMaxWeightShards) return index_unparseable(fmt::format("names over {} shards", kMaxWeightShards));
  }
  return index;
}

}  // namespace ftdiag::parse
