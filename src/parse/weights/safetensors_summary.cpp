#include "parse/weights/safetensors_summary.h"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace ftdiag::parse {
namespace {

std::string_view last_component(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? name : name.substr(dot + 1);
}

std::string_view module_of(std::string_view name) {
  const auto dot = name.rfind('.');
  return dot == std::string_view::npos ? std::string_view{} : name.substr(0, dot);
}

// The linear layers LoRA targets in the architectures ftdiag knows (Llama
// and its kin, Mixtral's experts and router, GPT-NeoX, ChatGLM, Baichuan,
// Phi). The LM head and embeddings are left out, as PEFT's "all-linear" does.
// GPT-2's c_attn/c_fc are Conv1D, stored [in, out]: left out rather than read
// the wrong way round.
bool is_linear_name(std::string_view name) {
  static const std::set<std::string_view> kLinearNames = {
      "q_proj",   "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj",      "down_proj",
      "W_pack",   "query_key_value",  "dense",  "dense_h_to_4h", "dense_4h_to_h", "w1",
      "w2",       "w3",     "gate",   "qkv_proj", "gate_up_proj", "fc1",         "fc2",
      "out_proj", "wqkv",   "wo"};
  return kLinearNames.contains(name);
}

// Buffers a checkpoint carries beside its parameters (see the header).
bool is_buffer(const SafetensorsTensor& tensor) {
  const auto last = last_component(tensor.name);
  if (last == "inv_freq" || last == "masked_bias" || last == "position_ids") return true;
  if (last == "bias" && tensor.shape.size() > 1) return true;  // a linear's bias is 1-D; a causal mask is not
  return tensor.dtype == "BOOL";
}

constexpr std::string_view kQuantStateMarker = ".weight.quant_state.bitsandbytes__";

// bitsandbytes' state beside a quantized weight (its QuantState.as_dict):
// "<m>.weight.absmax", ".quant_map", ".nested_absmax", ".nested_quant_map"
// and "<m>.weight.quant_state.bitsandbytes__nf4" (4-bit); "<m>.SCB" and
// "<m>.weight_format" (8-bit, Int8Params).
bool is_quantization_state(std::string_view name) {
  const auto last = last_component(name);
  if (last == "SCB" || last == "weight_format") return true;
  if (name.find(".weight.quant_state.") != std::string_view::npos) return true;
  const bool of_a_weight = last_component(module_of(name)) == "weight";
  return of_a_weight && (last == "absmax" || last == "quant_map" || last == "nested_absmax" || last == "nested_quant_map");
}

// What the quantization markers say, found before anything is counted: a
// packed weight and its quant_state may sit in either order, in any shard.
struct Quantization {
  std::string method;                 // "", "bnb-4bit", "bnb-8bit", "gptq-awq"
  std::set<std::string> packed_4bit;  // names of bitsandbytes' packed uint8 weights
};

Quantization quantization_of(const std::vector<SafetensorsHeader>& files) {
  Quantization found;
  bool int32_packed = false, int8 = false;
  for (const auto& file : files) {
    for (const auto& tensor : file.tensors) {
      const auto& name = tensor.name;
      if (auto marker = name.find(kQuantStateMarker); marker != std::string::npos) {
        found.packed_4bit.insert(name.substr(0, marker + std::string_view(".weight").size()));
      }
      int32_packed = int32_packed || last_component(name) == "qweight";
      int8 = int8 || last_component(name) == "SCB";
    }
  }
  // GPTQ/AWQ first: their counts are withheld whatever else is there.
  if (int32_packed) found.method = "gptq-awq";
  else if (!found.packed_4bit.empty()) found.method = "bnb-4bit";
  else if (int8) found.method = "bnb-8bit";
  return found;
}

// (in, out) -> copies, per linear name.
using LinearShapes = std::map<std::string, std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>>;

struct Tally {
  std::uint64_t tensors = 0;
  std::uint64_t bytes = 0;
  std::uint64_t parameters = 0;
  std::uint64_t buffers = 0;
  std::uint64_t unknown_dtypes = 0;
  std::map<std::string, std::uint64_t, std::less<>> module_parameters;
  std::map<std::string, std::uint64_t> dtype_parameters;
  LinearShapes linears;
};

void count_parameter(Tally& tally, const SafetensorsTensor& tensor, bool packed_4bit) {
  const std::uint64_t parameters = packed_4bit ? 2 * tensor.elements : tensor.elements;
  tally.parameters += parameters;
  tally.dtype_parameters[tensor.dtype] += parameters;
  const auto module = module_of(tensor.name);
  tally.module_parameters[std::string(module)] += parameters;
  if (!packed_4bit && last_component(tensor.name) == "weight" && tensor.shape.size() == 2 &&
      is_linear_name(last_component(module))) {
    ++tally.linears[std::string(last_component(module))][{tensor.shape[1], tensor.shape[0]}];
  }
}

Tally tally_of(const std::vector<SafetensorsHeader>& files, const Quantization& quantization) {
  Tally tally;
  for (const auto& file : files) {
    tally.bytes += file.data_bytes;
    tally.unknown_dtypes += file.unknown_dtype_tensors;
    for (const auto& tensor : file.tensors) {
      ++tally.tensors;
      if (is_buffer(tensor) || is_quantization_state(tensor.name)) {
        ++tally.buffers;
        continue;
      }
      count_parameter(tally, tensor, quantization.packed_4bit.contains(tensor.name));
    }
  }
  return tally;
}

template <class Map>
auto largest_entry(const Map& map) {
  return std::max_element(map.begin(), map.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
}

// "4096,4096,32" or "4096,11008,30;4096,1408,2": most copies first.
std::string linear_text(const std::map<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>& shapes) {
  std::vector<std::pair<std::pair<std::uint64_t, std::uint64_t>, std::uint64_t>> groups(shapes.begin(), shapes.end());
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::string> parts;
  for (const auto& [in_out, copies] : groups) parts.push_back(fmt::format("{},{},{}", in_out.first, in_out.second, copies));
  return fmt::format("{}", fmt::join(parts, ";"));
}

void write_counts(DottedSettings& settings, const Tally& tally) {
  settings["parameters"] = std::to_string(tally.parameters);
  if (auto largest = largest_entry(tally.module_parameters); largest != tally.module_parameters.end()) {
    settings["largest_layer_parameters"] = std::to_string(largest->second);
    settings["largest_layer"] = largest->first;
  }
  for (const auto& [name, shapes] : tally.linears) settings["linear." + name] = linear_text(shapes);
}

}  // namespace

DottedSettings summarize_safetensors(const std::vector<SafetensorsHeader>& files) {
  const Quantization quantization = quantization_of(files);
  const Tally tally = tally_of(files, quantization);
  DottedSettings settings;
  settings["files"] = std::to_string(files.size());
  settings["tensors"] = std::to_string(tally.tensors);
  settings["bytes"] = std::to_string(tally.bytes);
  settings["buffers"] = std::to_string(tally.buffers);
  settings["unknown_dtype_tensors"] = std::to_string(tally.unknown_dtypes);
  if (auto dtype = largest_entry(tally.dtype_parameters); dtype != tally.dtype_parameters.end()) {
    settings["dtype"] = dtype->first;
  }
  if (!quantization.method.empty()) settings["quantization"] = quantization.method;
  // GPTQ/AWQ counts would need the bit width from config.json: none rather than wrong ones.
  if (quantization.method != "gptq-awq") write_counts(settings, tally);
  return settings;
}

}  // namespace ftdiag::parse
