#include "facts/estimate_inputs.h"

#include <fmt/format.h>

#include "estimate/model_name.h"
#include "facts/version_order.h"

namespace ftdiag::facts {

namespace {

std::optional<std::uint64_t> positive(const FactSet& facts, const std::string& name) {
  auto value = facts.value_of<std::int64_t>(name);
  if (!value || *value <= 0) return std::nullopt;
  return static_cast<std::uint64_t>(*value);
}

}  // namespace

bool flattens_on_gpu(std::string_view deepspeed_version) {
  return looks_like_version(deepspeed_version) && compare_versions(deepspeed_version, "0.18.7") >= 0;
}

bool zero2_estimator_before_0_14_3(std::string_view deepspeed_version) {
  return looks_like_version(deepspeed_version) && compare_versions(deepspeed_version, "0.14.3") < 0;
}

Fact<ModelFromEvidence> model_from_evidence(const evidence::EvidenceDocument& document, const FactSet& facts) {
  std::optional<ModelFromEvidence> from_config;
  std::optional<Missing> config_problem;  // the first config.json that could not size the model, and why
  for (std::size_t h = 0; h < document.hosts.size() && !from_config; ++h) {
    for (std::size_t c = 0; c < document.hosts[h].configs.size(); ++c) {
      const auto& config = document.hosts[h].configs[c];
      if (config.kind != "model-config") continue;
      auto shape = estimate::shape_from_config(config.settings);
      if (shape) {
        from_config = ModelFromEvidence{shape.value(), fmt::format("config.json ({})", config.from.file),
                                        fmt::format("/hosts/{}/configs/{}", h, c)};
        break;
      }
      if (!config_problem) config_problem = Missing{shape.missing().reason, fmt::format("{}: {}", config.from.file, shape.missing().detail)};
    }
  }
  // The weights count exactly; the config gives them their dimensions.
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t c = 0; c < document.hosts[h].configs.size(); ++c) {
      const auto& config = document.hosts[h].configs[c];
      if (config.kind != "model-weights") continue;
      if (auto shape = estimate::shape_from_weights(config.settings, from_config ? &from_config->shape : nullptr)) {
        return ModelFromEvidence{shape.value(), fmt::format("the safetensors headers ({})", config.from.file),
                                 fmt::format("/hosts/{}/configs/{}", h, c)};
      }
    }
  }
  if (from_config) return std::move(*from_config);
  if (auto name = facts.value_of<std::string>("config.model")) {
    if (auto count = estimate::parameters_from_model_name(*name)) {
      auto shape = estimate::shape_from_count(count.value());
      shape.source = "the model's name";
      return ModelFromEvidence{shape, fmt::format("the model's name ({})", *name), facts.get("config.model").pointer};
    }
  }
  if (config_problem) return *config_problem;
  return Missing{MissingReason::not_present, "no safetensors weights, config.json or model name sizes the model"};
}

estimate::TrainingSetup setup_from_facts(const FactSet& facts, estimate::TrainingSetup setup) {
  if (auto stage = facts.value_of<std::int64_t>("config.zero_stage"); stage && *stage >= 0 && *stage <= 3) {
    setup.zero_stage = static_cast<int>(*stage);
  }
  auto device = [&](const char* name) -> std::optional<bool> {
    auto where = facts.value_of<std::string>(name);
    if (!where) return std::nullopt;
    return *where != "none";
  };
  if (auto offload = device("config.offload_optimizer")) setup.offload_optimizer = *offload;
  if (auto offload = device("config.offload_param")) setup.offload_param = *offload && setup.zero_stage == 3;
  if (auto gather = facts.value_of<bool>("config.gather_16bit_weights_on_save")) setup.gather_16bit_weights_on_save = *gather;
  if (auto precision = facts.value_of<std::string>("config.precision")) {
    if (auto p = estimate::precision_from_string(*precision)) setup.precision = *p;
  }
  if (auto finetuning = facts.value_of<std::string>("config.finetuning")) {
    if (auto f = estimate::finetune_from_string(*finetuning)) setup.finetune = *f;
  }
  if (auto gpus = positive(facts, "config.gpus_per_node")) {
    setup.gpus_per_node = *gpus;
  } else if (auto count = positive(facts, "gpu.count")) {
    setup.gpus_per_node = *count;
  }
  if (auto nodes = positive(facts, "config.nodes")) setup.nodes = *nodes;
  if (auto rank = positive(facts, "config.lora_rank")) setup.lora_rank = *rank;
  if (auto batch = positive(facts, "config.micro_batch")) setup.micro_batch = *batch;
  if (auto steps = positive(facts, "config.gradient_accumulation_steps")) setup.gradient_accumulation_steps = *steps;
  if (auto length = positive(facts, "config.sequence_length")) setup.sequence_length = *length;
  if (auto checkpointing = facts.value_of<bool>("config.gradient_checkpointing")) setup.gradient_checkpointing = *checkpointing;
  if (auto safetensors = facts.value_of<bool>("config.save_safetensors")) setup.shard_copy_on_save = *safetensors;
  // A torch without CUDA trains on the CPU: the states are host memory too.
  if (auto cpu_only = facts.value_of<bool>("torch.cpu_only")) setup.train_on_cpu = *cpu_only;
  if (auto version = facts.value_of<std::string>("deepspeed.version")) {
    setup.flatten_on_gpu = flattens_on_gpu(*version);
    setup.deepspeed_estimator_before_0_14_3 = zero2_estimator_before_0_14_3(*version);
  }
  return setup;
}

}  // namespace ftdiag::facts
