// safetensors files built by hand, byte for byte as the format specifies and
// the safetensors library writes them: an 8-byte little-endian header
// length, the header JSON padded with spaces to a multiple of 8, then the
// tensors' bytes in header order. Files get their data as a hole
// (resize_file), so a tensor of real size costs no disk. And the tensors of
// a small decoder, named as transformers names a Llama's, with its
// config.json.
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "parse/weights/safetensors_header.h"

namespace ftdiag::parse::testing {

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

// A decoder as transformers' LlamaForCausalLM names its state dict (Qwen2
// adds q/k/v biases; a tied model has no lm_head.weight).
struct Decoder {
  std::uint64_t hidden = 64, layers = 2, heads = 4, kv_heads = 2, intermediate = 176, vocab = 128;
  bool tied = false;
  bool qkv_bias = false;
  std::string dtype = "BF16";
};

inline std::vector<TensorSpec> decoder_tensors(const Decoder& m) {
  const std::uint64_t head_dim = m.hidden / m.heads;
  std::vector<TensorSpec> tensors = {{"model.embed_tokens.weight", m.dtype, {m.vocab, m.hidden}}};
  for (std::uint64_t i = 0; i < m.layers; ++i) {
    const std::string layer = fmt::format("model.layers.{}.", i);
    tensors.push_back({layer + "input_layernorm.weight", m.dtype, {m.hidden}});
    tensors.push_back({layer + "self_attn.q_proj.weight", m.dtype, {m.heads * head_dim, m.hidden}});
    tensors.push_back({layer + "self_attn.k_proj.weight", m.dtype, {m.kv_heads * head_dim, m.hidden}});
    tensors.push_back({layer + "self_attn.v_proj.weight", m.dtype, {m.kv_heads * head_dim, m.hidden}});
    if (m.qkv_bias) {
      tensors.push_back({layer + "self_attn.q_proj.bias", m.dtype, {m.heads * head_dim}});
      tensors.push_back({layer + "self_attn.k_proj.bias", m.dtype, {m.kv_heads * head_dim}});
      tensors.push_back({layer + "self_attn.v_proj.bias", m.dtype, {m.kv_heads * head_dim}});
    }
    tensors.push_back({layer + "self_attn.o_proj.weight", m.dtype, {m.hidden, m.heads * head_dim}});
    tensors.push_back({layer + "mlp.gate_proj.weight", m.dtype, {m.intermediate, m.hidden}});
    tensors.push_back({layer + "mlp.up_proj.weight", m.dtype, {m.intermediate, m.hidden}});
    tensors.push_back({layer + "mlp.down_proj.weight", m.dtype, {m.hidden, m.intermediate}});
    tensors.push_back({layer + "post_attention_layernorm.weight", m.dtype, {m.hidden}});
  }
  tensors.push_back({"model.norm.weight", m.dtype, {m.hidden}});
  if (!m.tied) tensors.push_back({"lm_head.weight", m.dtype, {m.vocab, m.hidden}});
  return tensors;
}

inline std::string decoder_config(const Decoder& m, std::string_view model_type = "llama") {
  return fmt::format(R"({{"architectures": ["LlamaForCausalLM"], "model_type": "{}", "hidden_size": {},
    "num_hidden_layers": {}, "num_attention_heads": {}, "num_key_value_heads": {}, "intermediate_size": {},
    "vocab_size": {}, "tie_word_embeddings": {}, "torch_dtype": "bfloat16"}})",
                     model_type, m.hidden, m.layers, m.heads, m.kv_heads, m.intermediate, m.vocab, m.tied);
}

}  // namespace ftdiag::parse::testing
