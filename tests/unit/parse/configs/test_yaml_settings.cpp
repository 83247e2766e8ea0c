#include <doctest/doctest.h>

#include <string>

#include "parse/configs/yaml_settings.h"

using namespace ftdiag;
using namespace ftdiag::parse;

namespace {

DottedSettings flatten_yaml(std::string_view text) {
  auto settings = flatten_yaml_settings(text);
  if (!settings) FAIL_CHECK(settings.missing().detail);
  return settings.value_or({});
}

std::string yaml_refused(std::string_view text) {
  auto settings = flatten_yaml_settings(text);
  REQUIRE_FALSE(settings);
  CHECK(settings.missing().reason == MissingReason::unparseable);
  for (char c : settings.missing().detail) CHECK((c >= 0x20 && c < 0x7f));
  return settings.missing().detail;
}

}  // namespace

TEST_CASE("yaml_settings: accelerate's DeepSpeed config as `accelerate config` writes it") {
  auto s = flatten_yaml(R"(compute_environment: LOCAL_MACHINE
debug: false
deepspeed_config:
  gradient_accumulation_steps: 1
  offload_optimizer_device: cpu
  offload_param_device: none
  zero3_init_flag: true
  zero3_save_16bit_model: true
  zero_stage: 3
distributed_type: DEEPSPEED
downcast_bf16: 'no'
mixed_precision: bf16
num_machines: 1
num_processes: 8
use_cpu: false
)");
  CHECK(s.at("deepspeed_config.zero_stage") == "3");
  CHECK(s.at("deepspeed_config.offload_optimizer_device") == "cpu");
  CHECK(s.at("deepspeed_config.zero3_save_16bit_model") == "true");
  CHECK(s.at("downcast_bf16") == "no");  // quoted: a string, not YAML 1.1's false
  CHECK(s.at("num_processes") == "8");
  CHECK(s.size() == 14);
}

TEST_CASE("yaml_settings: scalars read as PyYAML reads them") {
  auto s = flatten_yaml("a: yes\nb: Off\nc: ~\nd:\ne: 1e-5\nf: \"true\"\ng: [1, two]\nh: {}\ni: []\n");
  CHECK(s.at("a") == "true");
  CHECK(s.at("b") == "false");
  CHECK(s.at("c") == "null");
  CHECK(s.at("d") == "null");
  CHECK(s.at("e") == "1e-5");
  CHECK(s.at("f") == "true");
  CHECK(s.at("g.0") == "1");
  CHECK(s.at("g.1") == "two");
  CHECK(s.at("h") == "{}");
  CHECK(s.at("i") == "[]");
}

TEST_CASE("yaml_settings: an axolotl recipe with a list of datasets and LoRA targets") {
  auto s = flatten_yaml(R"(base_model: NousResearch/Llama-2-7b-hf
load_in_4bit: true
adapter: qlora
lora_target_modules:
  - q_proj
  - v_proj
datasets:
  - path: mhenrichsen/alpaca_2k_test
    type: alpaca
micro_batch_size: 2
deepspeed: deepspeed_configs/zero2.json
)");
  CHECK(s.at("lora_target_modules.1") == "v_proj");
  CHECK(s.at("datasets.0.path") == "mhenrichsen/alpaca_2k_test");
  CHECK(s.at("datasets.0.type") == "alpaca");
  CHECK(s.at("adapter") == "qlora");
}

TEST_CASE("yaml_settings: anchors, aliases and the merge key") {
  auto s = flatten_yaml("base: &base\n  lr: 1e-4\n  steps: 10\nrun:\n  <<: *base\n  steps: 20\nname: &n first\nalias: *n\ncopy: *base\n");
  CHECK(s.at("run.lr") == "1e-4");
  CHECK(s.at("run.steps") == "20");
  CHECK(s.at("alias") == "first");
  CHECK(s.at("copy.lr") == "1e-4");
  CHECK(s.count("run.<<") == 0);
}

TEST_CASE("yaml_settings: a repeated key replaces the earlier section") {
  auto s = flatten_yaml("a:\n  b: 1\n  c: 2\na:\n  d: 3\n");
  CHECK(s.count("a.b") == 0);
  CHECK(s.at("a.d") == "3");
}

TEST_CASE("yaml_settings: malformed YAML is refused with its line and column") {
  const auto detail = yaml_refused("a: 1\nb: [1, 2\nc: 3\n");
  CHECK(detail.find("line ") != std::string::npos);
  CHECK(detail.find("column ") != std::string::npos);
  CHECK(yaml_refused("a: b: c\n").find("line 1") != std::string::npos);
}

TEST_CASE("yaml_settings: what is not a mapping is refused") {
  CHECK(yaml_refused("").find("no YAML document") != std::string::npos);
  CHECK(yaml_refused("# only a comment\n").find("no YAML document") != std::string::npos);
  CHECK(yaml_refused("- a\n- b\n").find("not a mapping") != std::string::npos);
  CHECK(yaml_refused("deepspeed --num_gpus 8 train.py").find("not a mapping") != std::string::npos);
  CHECK(yaml_refused("? [a, b]\n: 1\n").find("key that is a mapping or a sequence") != std::string::npos);
}

TEST_CASE("yaml_settings: bounds on size, nesting, keys and alias bombs") {
  CHECK(yaml_refused(std::string(kMaxYamlSettingsBytes + 1, 'a')).find("MiB") != std::string::npos);
  std::string deep;
  for (std::size_t i = 0; i < kMaxYamlSettingsDepth + 5; ++i) deep += std::string(i * 2, ' ') + "k:\n";
  CHECK(yaml_refused(deep).find("nested deeper") != std::string::npos);
  CHECK(yaml_refused(std::string(10000, '[')).find("line 1") != std::string::npos);
  std::string many;
  for (std::size_t i = 0; i <= kMaxYamlSettingsKeys; ++i) many += "k" + std::to_string(i) + ": 1\n";
  CHECK(yaml_refused(many).find("more than") != std::string::npos);
  // Each level doubles the one before: 2^20 keys if expanded.
  std::string bomb = "a0: &a0 {x: 1, y: 2}\n";
  for (int i = 1; i <= 20; ++i) bomb += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + "]\n";
  CHECK(yaml_refused(bomb).find("more than") != std::string::npos);
}

TEST_CASE("yaml_settings: binary garbage and a 10 MB line never throw") {
  std::string garbage;
  for (int i = 0; i < 4096; ++i) garbage.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  auto read = flatten_yaml_settings(garbage);
  if (!read) CHECK(read.missing().reason == MissingReason::unparseable);
  auto line = flatten_yaml_settings("key: " + std::string(10 << 20, 'x'));
  REQUIRE(line);
  CHECK(line->at("key").size() == (10u << 20));
}
