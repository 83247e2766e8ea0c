#include <doctest/doctest.h>

#include <string>

#include "parse/configs/json_settings.h"

using namespace ftdiag;
using namespace ftdiag::parse;

namespace {

JsonSettings flatten_json(std::string_view text) {
  auto settings = flatten_json_settings(text);
  if (!settings) FAIL_CHECK(settings.missing().detail);
  return settings.value_or({});
}

std::string json_refused(std::string_view text) {
  auto settings = flatten_json_settings(text);
  REQUIRE_FALSE(settings);
  CHECK(settings.missing().reason == MissingReason::unparseable);
  return settings.missing().detail;
}

}  // namespace

TEST_CASE("flatten_json_settings: a ZeRO-2 config with CPU offload") {
  auto s = flatten_json(R"({
  "train_micro_batch_size_per_gpu": 4,
  "gradient_accumulation_steps": 8,
  "gradient_clipping": 1.0,
  "bf16": {"enabled": true},
  "fp16": {"enabled": false, "loss_scale": 0, "initial_scale_power": 16},
  "zero_optimization": {
    "stage": 2,
    "offload_optimizer": {"device": "cpu", "pin_memory": true},
    "allgather_bucket_size": 5e8,
    "reduce_bucket_size": 500000000,
    "overlap_comm": true
  },
  "optimizer": {"type": "AdamW", "params": {"lr": 3e-5, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.0}},
  "wall_clock_breakdown": false
})");
  CHECK(s.at("zero_optimization.stage") == "2");
  CHECK(s.at("zero_optimization.offload_optimizer.device") == "cpu");
  CHECK(s.at("zero_optimization.offload_optimizer.pin_memory") == "true");
  CHECK(s.at("zero_optimization.allgather_bucket_size") == "5e8");  // as written
  CHECK(s.at("zero_optimization.reduce_bucket_size") == "500000000");
  CHECK(s.at("gradient_clipping") == "1.0");
  CHECK(s.at("fp16.enabled") == "false");
  CHECK(s.at("fp16.loss_scale") == "0");
  CHECK(s.at("optimizer.params.betas.0") == "0.9");
  CHECK(s.at("optimizer.params.betas.1") == "0.999");
  CHECK(s.at("optimizer.params.lr") == "3e-5");
  CHECK(s.at("optimizer.params.weight_decay") == "0.0");
  CHECK(s.size() == 20);
}

TEST_CASE("flatten_json_settings: the \"auto\" values HF Trainer fills in, ZeRO-3 offload to NVMe") {
  auto s = flatten_json(R"({
  "train_batch_size": "auto",
  "train_micro_batch_size_per_gpu": "auto",
  "bf16": {"enabled": "auto"},
  "zero_optimization": {
    "stage": 3,
    "offload_param": {"device": "nvme", "nvme_path": "/local_nvme", "buffer_count": 5},
    "stage3_max_live_parameters": 1e9,
    "stage3_prefetch_bucket_size": "auto",
    "stage3_gather_16bit_weights_on_model_save": true
  },
  "steps_per_print": -1,
  "comms_logger": null
})");
  CHECK(s.at("train_batch_size") == "auto");
  CHECK(s.at("bf16.enabled") == "auto");
  CHECK(s.at("zero_optimization.stage") == "3");
  CHECK(s.at("zero_optimization.offload_param.nvme_path") == "/local_nvme");
  CHECK(s.at("zero_optimization.stage3_prefetch_bucket_size") == "auto");
  CHECK(s.at("zero_optimization.stage3_gather_16bit_weights_on_model_save") == "true");
  CHECK(s.at("steps_per_print") == "-1");
  CHECK(s.at("comms_logger") == "null");
}

TEST_CASE("flatten_json_settings: nested arrays, objects in arrays, empty sections") {
  auto s = flatten_json(R"({"a": [[1, 2], [], [{"b": "x"}, {}]], "zero_optimization": {}, "tags": [],
                       "text": "line\nbreak \u00e9 \"quoted\""})");
  CHECK(s.at("a.0.0") == "1");
  CHECK(s.at("a.0.1") == "2");
  CHECK(s.at("a.1") == "[]");
  CHECK(s.at("a.2.0.b") == "x");
  CHECK(s.at("a.2.1") == "{}");
  CHECK(s.at("zero_optimization") == "{}");  // present, so its defaults apply
  CHECK(s.at("tags") == "[]");
  CHECK(s.at("text") == "line\nbreak \xc3\xa9 \"quoted\"");
  CHECK(s.size() == 8);
}

TEST_CASE("flatten_json_settings: numbers as written, integers past 64 bits") {
  auto s = flatten_json(R"({"i": 7, "neg": -12, "big": 18446744073709551615, "huge": 18446744073709551616,
                       "f": 0.5, "e": 1E-08, "zero": -0})");
  CHECK(s.at("i") == "7");
  CHECK(s.at("neg") == "-12");
  CHECK(s.at("big") == "18446744073709551615");
  CHECK(s.at("huge") == "18446744073709551616");  // parsed as a double, kept as written
  CHECK(s.at("f") == "0.5");
  CHECK(s.at("e") == "1E-08");
  CHECK(s.at("zero") == "0");
}

TEST_CASE("flatten_json_settings: a repeated key replaces the earlier one, as json.load does") {
  auto s = flatten_json(R"({"zero_optimization": {"stage": 3, "offload_param": {"device": "cpu"}},
                       "zero_optimization": {"stage": 1}, "x": 1, "x": {"y": 2}})");
  CHECK(s.at("zero_optimization.stage") == "1");
  CHECK_FALSE(s.contains("zero_optimization.offload_param.device"));
  CHECK_FALSE(s.contains("x"));
  CHECK(s.at("x.y") == "2");
  CHECK(s.size() == 2);
}

TEST_CASE("flatten_json_settings: empty object, empty input, not an object") {
  CHECK(flatten_json("{}").empty());
  CHECK(flatten_json(" \n{ }\n").empty());
  CHECK(json_refused("").find("line 1, column 1") != std::string::npos);
  CHECK(json_refused("   \n").find("line 2, column 1") != std::string::npos);
  CHECK(json_refused("[1, 2]").find("line 1, column 1: the top level is not an object") != std::string::npos);
  CHECK(json_refused("\n  \"stage\"").find("line 2, column 3: the top level is not an object") != std::string::npos);
  CHECK(json_refused("42").find("not an object") != std::string::npos);
}

TEST_CASE("flatten_json_settings: malformed input is refused with its line and column") {
  auto trailing_comma = json_refused("{\n  \"stage\": 2,\n}\n");
  CHECK_MESSAGE(trailing_comma.starts_with("line 3, column 1: "), trailing_comma);
  CHECK(trailing_comma.find("json.exception") == std::string::npos);  // nlohmann's prefix is dropped

  auto bad_literal = json_refused(R"({"offload": tru})");
  CHECK_MESSAGE(bad_literal.starts_with("line 1, column 16: "), bad_literal);
  CHECK(bad_literal.find("invalid literal") != std::string::npos);

  // Comments are not JSON, and DeepSpeed's json.load refuses them too.
  CHECK(json_refused("{\"a\": 1 // why\n}").starts_with("line 1, column 9: "));
  CHECK(json_refused("{\"a\": 1} {\"b\": 2}").find("line 1, column 10") != std::string::npos);  // two documents
  CHECK(json_refused("{\"a\": 1").find("line 1, column 8") != std::string::npos);
  CHECK(json_refused("{\"a\": 1e999}").find("number overflow") != std::string::npos);

  // Bytes that are not UTF-8 or not printable never reach the detail.
  auto garbage = json_refused(std::string("{\"a\": \"\xff\x01\"}"));
  for (char c : garbage) CHECK((c >= 0x20 && c < 0x7f));
}

TEST_CASE("flatten_json_settings: the bounds") {
  std::string deep;
  for (std::size_t i = 0; i < kMaxJsonSettingsDepth - 1; ++i) deep += "{\"k\":";
  deep += "1" + std::string(kMaxJsonSettingsDepth - 1, '}');
  auto within = flatten_json("{\"k\":" + deep + "}");
  CHECK(within.size() == 1);  // 64 levels: the top object and 63 below

  std::string deeper = "{\"k\":[" + deep + "]}";
  auto too_deep = json_refused(deeper);
  CHECK(too_deep.find("nested deeper than 64 levels (at k.0.k.k") != std::string::npos);
  // A hostile depth stops at the bound, long before the stack could suffer.
  CHECK(json_refused("{\"a\":" + std::string(1000000, '[')).find("nested deeper") != std::string::npos);

  std::string many = "{\"a\": [0";
  for (std::size_t i = 1; i <= kMaxJsonSettingsKeys; ++i) many += ",0";
  CHECK(json_refused(many + "]}").find("more than 10000 settings (the last read: a.10000)") != std::string::npos);

  std::string big = "{\"a\": \"" + std::string(kMaxJsonSettingsBytes, 'x') + "\"}";
  CHECK(json_refused(big).find("more than 16 MiB") != std::string::npos);
}
