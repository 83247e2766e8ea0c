#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collect/configs/json_settings.h"
#include "collect/weights/model_weights.h"
#include "safetensors_fixtures.h"
#include "scratch_tree.h"
#include "estimate/model_shape.h"
#include "unit/permission_checks.h"
#include "skip.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using namespace ftdiag::collect::testing;

namespace {

// A decoder as transformers' LlamaForCausalLM names its state dict (Qwen2
// adds q/k/v biases; a tied model has no lm_head.weight).
struct Decoder {
  std::uint64_t hidden = 64, layers = 2, heads = 4, kv_heads = 2, intermediate = 176, vocab = 128;
  bool tied = false;
  bool qkv_bias = false;
  std::string dtype = "BF16";
};

std::vector<TensorSpec> decoder_tensors(const Decoder& m) {
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

std::string decoder_config(const Decoder& m, std::string_view model_type = "llama") {
  return fmt::format(R"({{"architectures": ["LlamaForCausalLM"], "model_type": "{}", "hidden_size": {},
    "num_hidden_layers": {}, "num_attention_heads": {}, "num_key_value_heads": {}, "intermediate_size": {},
    "vocab_size": {}, "tie_word_embeddings": {}, "torch_dtype": "bfloat16"}})",
                     model_type, m.hidden, m.layers, m.heads, m.kv_heads, m.intermediate, m.vocab, m.tied);
}

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

DottedSettings read_weights(const std::filesystem::path& model) {
  auto settings = read_model_weights(model);
  REQUIRE_MESSAGE(settings, (settings ? "" : settings.missing().detail));
  return *settings;
}

Missing not_read(const std::filesystem::path& model) {
  auto settings = read_model_weights(model);
  REQUIRE_FALSE(settings);
  return settings.missing();
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

// The weight_map of a sharded save: every tensor of each shard.
std::string index_json(const std::vector<std::pair<std::string, std::vector<TensorSpec>>>& shards) {
  std::vector<std::string> entries;
  std::uint64_t total = 0;
  for (const auto& [file, tensors] : shards) {
    for (const auto& tensor : tensors) entries.push_back(fmt::format(R"("{}": "{}")", tensor.name, file));
    total += data_bytes_of(tensors);
  }
  return fmt::format(R"({{"metadata": {{"total_size": {}}}, "weight_map": {{{}}}}})", total, fmt::join(entries, ", "));
}

}  // namespace

TEST_CASE("model_weights: Llama-2-7B's headers give its published count, as its config does") {
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

TEST_CASE("model_weights: a tied embedding is stored once, Qwen2's q/k/v biases count") {
  const Decoder qwen2_half{.hidden = 896, .layers = 24, .heads = 14, .kv_heads = 2, .intermediate = 4864,
                           .vocab = 151936, .tied = true, .qkv_bias = true};
  const auto s = summary_of(decoder_tensors(qwen2_half));
  CHECK(s.at("parameters") == "494032768");  // Qwen2-0.5B
  CHECK(s.at("parameters") == std::to_string(config_shape(decoder_config(qwen2_half, "qwen2")).parameters));
  CHECK(s.at("largest_layer") == "model.embed_tokens");
  CHECK(s.at("linear.k_proj") == "896,128,24");
}

TEST_CASE("model_weights: Mixtral's experts and router") {
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

TEST_CASE("model_weights: buffers saved with old GPT-NeoX weights are not parameters") {
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

TEST_CASE("model_weights: one linear name in several shapes") {
  const auto s = summary_of({{"a.0.dense.weight", "F32", {8, 4}},
                             {"a.1.dense.weight", "F32", {8, 4}},
                             {"b.dense.weight", "F32", {2, 16}},
                             {"c.dense.weight", "F32", {2, 3, 4}}});  // 3-D: not a linear
  CHECK(s.at("linear.dense") == "4,8,2;16,2,1");
}

TEST_CASE("model_weights: bitsandbytes 4-bit weights count two parameters a byte, their state is not counted") {
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

TEST_CASE("model_weights: bitsandbytes 8-bit and GPTQ") {
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

TEST_CASE("model_weights: model.safetensors read from its header alone, then shaped with its config") {
  ScratchTree tree;
  const Decoder tiny{.qkv_bias = true};
  write_safetensors(tree.path("model/model.safetensors"), decoder_tensors(tiny));
  tree.write("model/config.json", decoder_config(tiny, "qwen2"));
  const auto s = read_weights(tree.path("model"));
  CHECK(s.at("layout") == "model.safetensors");
  CHECK(s.at("files") == "1");
  const auto config = read_json_settings(tree.path("model/config.json"));
  REQUIRE(config);
  const auto from_config = estimate::shape_from_config(*config);
  REQUIRE(from_config);
  const auto shape = estimate::shape_from_weights(s, &*from_config);
  REQUIRE(shape);
  CHECK(shape->source == "safetensors");
  CHECK(shape->parameters == from_config->parameters);
  CHECK(shape->largest_layer_parameters == from_config->largest_layer_parameters);
  CHECK(shape->linears == from_config->linears);
  CHECK(shape->hidden == 64);
  CHECK(shape->stored_dtype == "bf16");
  CHECK(shape->stored_bytes_per_parameter == 2.0);
  // A file given directly.
  CHECK(read_weights(tree.path("model/model.safetensors")).at("layout") == "file");
}

TEST_CASE("model_weights: shards named by the index, each header checked") {
  ScratchTree tree;
  const auto all = decoder_tensors({});
  const std::vector<TensorSpec> first(all.begin(), all.begin() + 10), second(all.begin() + 10, all.end());
  const std::vector<std::pair<std::string, std::vector<TensorSpec>>> shards = {
      {"model-00001-of-00002.safetensors", first}, {"model-00002-of-00002.safetensors", second}};
  tree.write("m/model.safetensors.index.json", index_json(shards));
  write_safetensors(tree.path("m/model-00001-of-00002.safetensors"), first);
  write_safetensors(tree.path("m/model-00002-of-00002.safetensors"), second);
  write_safetensors(tree.path("m/leftover.safetensors"), {{"x", "F32", {1000}}});  // not in the index: not read
  const auto s = read_weights(tree.path("m"));
  CHECK(s.at("layout") == "model.safetensors.index.json");
  CHECK(s.at("files") == "2");
  CHECK(s.at("parameters") == std::to_string(config_shape(decoder_config({})).parameters));

  SUBCASE("a shard missing") {
    std::filesystem::remove(tree.path("m/model-00002-of-00002.safetensors"));
    const auto missing = not_read(tree.path("m"));
    CHECK(missing.reason == MissingReason::not_present);
    CHECK(contains(missing.detail, "model.safetensors.index.json names the shard model-00002-of-00002.safetensors"));
  }
  SUBCASE("a shard cut short") {
    write_safetensors(tree.path("m/model-00002-of-00002.safetensors"), second, 100);
    const auto missing = not_read(tree.path("m"));
    CHECK(missing.reason == MissingReason::unparseable);
    CHECK(contains(missing.detail, "model-00002-of-00002.safetensors: truncated: its tensors need"));
  }
  SUBCASE("a shard cut inside its header") {
    const auto shard = tree.path("m/model-00001-of-00002.safetensors");
    std::filesystem::resize_file(shard, 100);
    const auto missing = not_read(tree.path("m"));
    CHECK(missing.reason == MissingReason::unparseable);
    CHECK(contains(missing.detail, "model-00001-of-00002.safetensors: truncated inside its header"));
  }
  SUBCASE("a shard from another save") {
    write_safetensors(tree.path("m/model-00002-of-00002.safetensors"), {second.begin() + 1, second.end()});
    const auto missing = not_read(tree.path("m"));
    CHECK(missing.reason == MissingReason::unparseable);
    CHECK(contains(missing.detail, "lacks 1 of the tensors model.safetensors.index.json places in it (the first: " +
                                       second.front().name + ")"));
  }
  SUBCASE("model.safetensors is preferred, as transformers prefers it") {
    write_safetensors(tree.path("m/model.safetensors"), {{"x", "F32", {10}}});
    CHECK(read_weights(tree.path("m")).at("parameters") == "10");
  }
}

TEST_CASE("model_weights: shards without an index (a save cut before it wrote one)") {
  ScratchTree tree;
  const auto all = decoder_tensors({});
  write_safetensors(tree.path("m/model-00001-of-00002.safetensors"), {all.begin(), all.begin() + 5});
  write_safetensors(tree.path("m/model-00002-of-00002.safetensors"), {all.begin() + 5, all.end()});
  write_safetensors(tree.path("m/adapter_model.safetensors"), {{"lora_A.weight", "F32", {8, 64}}});
  const auto s = read_weights(tree.path("m"));
  CHECK(s.at("layout") == "*.safetensors");
  CHECK(s.at("files") == "2");
  CHECK(s.at("parameters") == std::to_string(config_shape(decoder_config({})).parameters));
}

TEST_CASE("model_weights: folders without safetensors weights say why") {
  ScratchTree tree;
  auto missing = not_read(tree.path("nowhere"));
  CHECK(missing.reason == MissingReason::not_present);
  CHECK(contains(missing.detail, "nowhere"));

  std::filesystem::create_directories(tree.path("empty"));
  missing = not_read(tree.path("empty"));
  CHECK(missing.reason == MissingReason::not_present);
  CHECK(contains(missing.detail, "holds no safetensors weights"));

  tree.write("bin/pytorch_model.bin", "PK\x03\x04");
  tree.write("bin/training_args.bin", "x");
  tree.write("bin/config.json", "{}");
  missing = not_read(tree.path("bin"));
  CHECK(missing.reason == MissingReason::unsupported);
  CHECK(contains(missing.detail, "pytorch_model.bin (torch.save's pickle)"));
  CHECK(contains(missing.detail, "config.json gives the shape"));
  CHECK(not_read(tree.path("bin/pytorch_model.bin")).reason == MissingReason::unsupported);

  write_safetensors(tree.path("lora/adapter_model.safetensors"), {{"lora_A.weight", "F32", {8, 64}}});
  missing = not_read(tree.path("lora"));
  CHECK(missing.reason == MissingReason::not_present);
  CHECK(contains(missing.detail, "only a LoRA adapter"));

  tree.write("text/model.safetensors", "this is not a safetensors file at all");
  missing = not_read(tree.path("text"));
  CHECK(missing.reason == MissingReason::unparseable);
  CHECK(contains(missing.detail, "text/model.safetensors: a header length of"));

  tree.write("short/model.safetensors", "abc");
  CHECK(contains(not_read(tree.path("short")).detail, "3 bytes, shorter than the 8"));

  tree.write("badindex/model.safetensors.index.json", R"({"weight_map": {"w": "../../etc/shadow"}})");
  missing = not_read(tree.path("badindex"));
  CHECK(missing.reason == MissingReason::unparseable);
  CHECK(contains(missing.detail, "not a file name in the index's folder"));
}

TEST_CASE("model_weights: an unreadable shard or folder is permission_denied, named") {
  const test::PermissionChecksApply as_a_user;
  if (!as_a_user.active()) FTDIAG_SKIP("root reads any file whatever its mode, and its capabilities cannot be lowered here");
  ScratchTree tree;
  write_safetensors(tree.path("m/model.safetensors"), {{"w", "F16", {4}}});
  std::filesystem::permissions(tree.path("m/model.safetensors"), std::filesystem::perms::none);
  auto missing = not_read(tree.path("m"));
  CHECK(missing.reason == MissingReason::permission_denied);
  CHECK(contains(missing.detail, "m/model.safetensors"));
  std::filesystem::permissions(tree.path("m"), std::filesystem::perms::none);
  missing = not_read(tree.path("m"));
  std::filesystem::permissions(tree.path("m"), std::filesystem::perms::owner_all);
  CHECK(missing.reason == MissingReason::permission_denied);
}

TEST_CASE("model_weights: the index parsed") {
  auto index = parse_safetensors_index(
      R"({"metadata": {"total_size": 10}, "weight_map": {"a": "s1.safetensors", "b": "s2.safetensors", "c": "s1.safetensors"}})");
  REQUIRE(index);
  CHECK(*index == SafetensorsIndex{{"s1.safetensors", {"a", "c"}}, {"s2.safetensors", {"b"}}});
  CHECK(parse_safetensors_index("{").missing().detail == "not JSON");
  CHECK(parse_safetensors_index(R"({"weight_map": {}})").missing().detail == "no \"weight_map\" of tensors to shards");
  CHECK(parse_safetensors_index(R"({"weight_map": {"a": 1}})").missing().detail == "the shard of \"a\" is not a file name");
  CHECK_FALSE(parse_safetensors_index(R"({"weight_map": {"a": ".."}})"));
  CHECK(parse_safetensors_index(std::string(100000, '[')).missing().detail == "nested deeper than an index is");
  // Brackets inside names are not nesting.
  CHECK(parse_safetensors_index(R"({"weight_map": {"[[[[[[[[[[[[[[[[[[[[\"{{{{{{{{{{{{{{{{{{{{{": "s.safetensors"}})"));
}
