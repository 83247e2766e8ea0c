#include "parse/configs/config_kind.h"

#include <initializer_list>

namespace ftdiag::parse {
namespace {

class Keys {
 public:
  explicit Keys(const DottedSettings& settings) : settings_(settings) {}

  bool has(std::string_view key) const { return settings_.find(std::string(key)) != settings_.end(); }
  // The key itself or any key under it ("zero_optimization" or "zero_optimization.stage").
  bool has_section(std::string_view key) const {
    if (has(key)) return true;
    const std::string prefix = std::string(key) + '.';
    auto it = settings_.lower_bound(prefix);
    return it != settings_.end() && it->first.starts_with(prefix);
  }
  bool any(std::initializer_list<std::string_view> keys) const {
    for (auto key : keys) {
      if (has_section(key)) return true;
    }
    return false;
  }

 private:
  const DottedSettings& settings_;
};

}  // namespace

std::optional<std::string> config_kind(const DottedSettings& settings) {
  const Keys keys(settings);
  if (keys.has("global_step") && keys.any({"log_history", "max_steps", "save_steps"})) return "trainer-state";
  if (keys.any({"compute_environment", "distributed_type"}) || keys.has("deepspeed_config.zero_stage")) return "accelerate";
  if (keys.any({"zero_optimization", "train_micro_batch_size_per_gpu", "train_batch_size", "fp16.enabled", "bf16.enabled"})) {
    return "deepspeed";
  }
  if (keys.has("finetuning_type") || (keys.has("stage") && keys.has("template"))) return "llamafactory";
  if (keys.has("base_model") && keys.any({"adapter", "micro_batch_size", "sequence_len", "datasets"})) return "axolotl";
  if (keys.has("peft_type")) return "peft-adapter";
  if (keys.has_section("architectures") || (keys.has("hidden_size") && keys.has("num_hidden_layers"))) return "model-config";
  if (keys.has("output_dir") && keys.any({"per_device_train_batch_size", "save_steps", "learning_rate"})) return "trainer-arguments";
  return std::nullopt;
}

}  // namespace ftdiag::parse
