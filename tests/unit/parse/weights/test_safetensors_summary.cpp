// A model's weights summarised from their safetensors headers: the
// published parameter counts of real architectures, tied and quantized
// weights, and the buffers saved beside the parameters.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "estimate/model_shape.h"
#include "parse/configs/json_settings.h"
#include "parse/weights/safetensors_header.h"
#include "parse/weights/safetensors_summary.h"
#include "unit/parse/weights/safetensors_fixtures.h"

using namespace ftdiag;
using namespace ftdiag::parse;
using namespace ftdiag::parse::testing;

namespace {

estimate::ModelShape config_shape(std::string_view config) {
  auto settings = flatten_json_settings(config);
  REQUIRE(settings);
  auto shape = estimate::shape_from_config(*settings);
  REQUIRE_MESSAGE(shape, (shape ? "" : shape.missing().detail));
  return *shape;
}

SafetensorsHeader header_of(const std::vector<TensorSpec>& tensors) {
  auto header = parse_safetensors_header(header_json(tensors), data_bytes_of(tensors));
  REQUIRE_MESSAGE(header, (header ? "" : header.missing().detail));
  return *header;
}

DottedSettings summary_of(const std::vector<TensorSpec>& tensors) { return summarize_safetensors({header_of(tensors)}); }

}  // namespace

TEST_CASE("safetensors_summary: Llama-2-7B's headers give its published count, as its config does") {
  const Decoder llama2{.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 32, .intermediate = 11008, .vocab = 32000};
  const auto s = summary_of(decoder_tensors(llama2));
  CHECK(s.at("parameters") == "6738415616");
  CHECK(s.at("parameters") == std::to_string(config_shape(decoder_config(llama2)).parameters));
  CHECK(s.at("largest_layer_parameters") == "131072000");  // embed_tokens and lm_head: 32000 x 4096 each
  CHECK(s.at("tensors") == "291");
  CHECK(s.at("bytes") == "13476831232");
  CHECK(s.at("dtype") == "BF16");
  CHECK(s.at("buffers") == "0");
  CHECK(s.at("files") == "1");
  CHECK(s.at("linear.q_proj") == "4096,4096,32");
  CHECK(s.at("linear.gate_proj") == "4096,11008,32");
  CHECK(s.at("linear.down_proj") == "11008,4096,32");
  CHECK_FALSE(s.contains("linear.lm_head"));  // not a LoRA target
  CHECK_FALSE(s.contains("quantization"));
}

TEST_CASE("safetensors_summary: a tied embedding is stored once, Qwen2's q/k/v biases count") {
  const Decoder qwen2_half{.hidden = 896, .layers = 24, .heads = 14, .kv_heads = 2, .intermediate = 4864,
                           .vocab = 151936, .tied = true, .qkv_bias = true};
  const auto s = summary_of(decoder_tensors(qwen2_half));
  CHECK(s.at("parameters") == "494032768");  // Qwen2-0.5B
  CHECK(s.at("parameters") == std::to_string(config_shape(decoder_config(qwen2_half, "qwen2")).parameters));
  CHECK(s.at("largest_layer") == "model.embed_tokens");
  CHECK(s.at("linear.k_proj") == "896,128,24");
}

TEST_CASE("safetensors_summary: Mixtral's experts and router") {
  std::vector<TensorSpec> tensors = decoder_tensors(
      {.hidden = 4096, .layers = 32, .heads = 32, .kv_heads = 8, .intermediate = 14336, .vocab = 32000});
  std::erase_if(tensors, [](const TensorSpec& t) { return t.name.find(".mlp.") != std::string::npos; });
  for (int layer = 0; layer < 32; ++layer) {
    const std::string moe = fmt::format("model.layers.{}.block_sparse_moe.", layer);
    tensors.push_back({moe + "gate.weight", "BF16", {8, 4096}});
    for (int expert = 0; expert < 8; ++expert) {
      const std::string prefix = fmt::format("{}experts.{}.", moe, expert);
      tensors.push_back({prefix + "w1.weight", "BF16", {14336, 4096}});
      tensors.push_back({prefix + "w2.weight", "BF16", {4096, 14336}});
      tensors.push_back({prefix + "w3.weight", "BF16", {14336, 4096}});
    }
  }
  const auto s = summary_of(tensors);
  CHECK(s.at("parameters") == "46702792704");
  CHECK(s.at("linear.w1") == "4096,14336,256");
  CHECK(s.at("linear.w2") == "14336,4096,256");
  CHECK(s.at("linear.gate") == "4096,8,32");
  CHECK(s.at("linear.k_proj") == "4096,1024,32");
}

TEST_CASE("safetensors_summary: buffers saved with old GPT-NeoX weights are not parameters") {
  // GPT-NeoX-20B as its first checkpoints hold it: a causal mask, masked_bias
  // and the rotary inv_freq in every layer.
  std::vector<TensorSpec> tensors = {{"gpt_neox.embed_in.weight", "F16", {50432, 6144}}};
  for (int i = 0; i < 44; ++i) {
    const std::string layer = fmt::format("gpt_neox.layers.{}.", i);
    for (const char* norm : {"input_layernorm", "post_attention_layernorm"}) {
      tensors.push_back({layer + norm + ".weight", "F16", {6144}});
      tensors.push_back({layer + norm + ".bias", "F16", {6144}});
    }
    tensors.push_back({layer + "attention.bias", "BOOL", {1, 1, 2048, 2048}});
    tensors.push_back({layer + "attention.masked_bias", "F16", {}});
    tensors.push_back({layer + "attention.rotary_emb.inv_freq", "F32", {24}});
    tensors.push_back({layer + "attention.query_key_value.weight", "F16", {18432, 6144}});
    tensors.push_back({layer + "attention.query_key_value.bias", "F16", {18432}});
    tensors.push_back({layer + "attention.dense.weight", "F16", {6144, 6144}});
    tensors.push_back({layer + "attention.dense.bias", "F16", {6144}});
    tensors.push_back({layer + "mlp.dense_h_to_4h.weight", "F16", {24576, 6144}});
    tensors.push_back({layer + "mlp.dense_h_to_4h.bias", "F16", {24576}});
    tensors.push_back({layer + "mlp.dense_4h_to_h.weight", "F16", {6144, 24576}});
    tensors.push_back({layer + "mlp.dense_4h_to_h.bias", "F16", {6144}});
  }
  tensors.push_back({"gpt_neox.final_layer_norm.weight", "F16", {6144}});
  tensors.push_back({"gpt_neox.final_layer_norm.bias", "F16", {6144}});
  tensors.push_back({"embed_out.weight", "F16", {50432, 6144}});
  const auto s = summary_of(tensors);
  CHECK(s.at("parameters") == "20554567680");
  CHECK(s.at("buffers") == "132");
  CHECK(s.at("dtype") == "F16");
  CHECK(s.at("linear.query_key_value") == "6144,18432,44");
  CHECK(s.at("linear.dense") == "6144,6144,44");
}

TEST_CASE("safetensors_summary: one linear name in several shapes") {
  const auto s = summary_of({{"a.0.dense.weight", "F32", {8, 4}},
                             {"a.1.dense.weight", "F32", {8, 4}},
                             {"b.dense.weight", "F32", {2, 16}},
                             {"c.dense.weight", "F32", {2, 3, 4}}});  // 3-D: not a linear
  CHECK(s.at("linear.dense") == "4,8,2;16,2,1");
}

TEST_CASE("safetensors_summary: bitsandbytes 4-bit weights count two parameters a byte, their state is not counted") {
  const Decoder tiny;
  std::vector<TensorSpec> tensors;
  for (auto tensor : decoder_tensors(tiny)) {
    const bool linear = tensor.shape.size() == 2 && tensor.name.find("_proj.") != std::string::npos;
    if (!linear) {
      tensors.push_back(tensor);
      continue;
    }
    const std::uint64_t n = tensor.shape[0] * tensor.shape[1];
    tensors.push_back({tensor.name, "U8", {n / 2, 1}});
    tensors.push_back({tensor.name + ".absmax", "U8", {n / 64}});
    tensors.push_back({tensor.name + ".quant_map", "F32", {16}});
    tensors.push_back({tensor.name + ".nested_absmax", "F32", {1}});
    tensors.push_back({tensor.name + ".nested_quant_map", "F32", {256}});
    tensors.push_back({tensor.name + ".quant_state.bitsandbytes__nf4", "U8", {125}});
  }
  const auto s = summary_of(tensors);
  const auto config = config_shape(decoder_config(tiny));
  CHECK(s.at("quantization") == "bnb-4bit");
  CHECK(s.at("parameters") == std::to_string(config.parameters));
  CHECK(s.at("buffers") == std::to_string(5 * 7 * tiny.layers));
  CHECK_FALSE(s.contains("linear.q_proj"));  // a packed weight's shape is lost
  auto shape = estimate::shape_from_weights(s, &config);
  REQUIRE(shape);
  CHECK(shape->stored_dtype == "int4");
  CHECK(shape->linears == config.linears);  // from the config
  CHECK(shape->stored_bytes_per_parameter < 1.5);
}

TEST_CASE("safetensors_summary: bitsandbytes 8-bit and GPTQ") {
  const auto int8 = summary_of({{"m.q_proj.weight", "I8", {8, 4}},
                                {"m.q_proj.SCB", "F32", {8}},
                                {"m.q_proj.weight_format", "U8", {}},
                                {"m.norm.weight", "F16", {4}}});
  CHECK(int8.at("quantization") == "bnb-8bit");
  CHECK(int8.at("parameters") == "36");
  CHECK(int8.at("linear.q_proj") == "4,8,1");
  const auto gptq = summary_of({{"m.q_proj.qweight", "I32", {16, 128}},
                                {"m.q_proj.qzeros", "I32", {1, 16}},
                                {"m.q_proj.scales", "F16", {1, 128}},
                                {"m.q_proj.g_idx", "I32", {128}}});
  CHECK(gptq.at("quantization") == "gptq-awq");
  CHECK_FALSE(gptq.contains("parameters"));  // the bit width is in config.json, not here
  CHECK_FALSE(estimate::shape_from_weights(gptq, nullptr));
}
