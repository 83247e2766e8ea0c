#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "collect/configs/json_settings.h"
#include "collect/weights/model_weights.h"
#include "estimate/model_shape.h"
#include "parse/configs/json_settings.h"
#include "scratch_tree.h"
#include "skip.h"
#include "unit/parse/weights/safetensors_fixtures.h"
#include "unit/permission_checks.h"

using namespace ftdiag;
using namespace ftdiag::collect;
using namespace ftdiag::collect::testing;
using namespace ftdiag::parse::testing;

namespace {

estimate::ModelShape config_shape(std::string_view config) {
  auto settings = parse::flatten_json_settings(config);
  REQUIRE(settings);
  auto shape = estimate::shape_from_config(*settings);
  REQUIRE_MESSAGE(shape, (shape ? "" : shape.missing().detail));
  return *shape;
}

parse::DottedSettings read_weights(const std::filesystem::path& model) {
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
