#include "estimate/parameter_split.h"

#include <algorithm>

#include <fmt/format.h>

#include "estimate/term.h"

namespace ftdiag::estimate {

namespace {

// The output head and the embeddings are linear-like but no LoRA recipe
// adapts them by default ("all" in LLaMA-Factory and axolotl means every
// linear layer of the decoder).
bool adapted_by_default(const std::string& name) {
  return name != "lm_head" && name != "embed_out" && name != "output_layer" && name != "embed_tokens" &&
         name != "gate" && name != "router";
}

bool targeted(const LinearWeights& linear, const std::vector<std::string>& targets) {
  if (targets.empty()) return adapted_by_default(linear.name);
  return std::find(targets.begin(), targets.end(), linear.name) != targets.end();
}

}  // namespace

Fact<ParameterSplit> split_parameters(const ModelShape& shape, const TrainingSetup& setup) {
  ParameterSplit split;
  split.total = static_cast<double>(shape.parameters);
  const double training_bytes = bytes_per_weight(setup.precision);
  if (setup.finetune == Finetune::full || setup.finetune == Finetune::freeze) {
    split.trainable = split.total;
    split.frozen_bytes_per_weight = training_bytes;
    split.trainable_formula = setup.finetune == Finetune::full
                                  ? fmt::format("all {} parameters", parameters_text(split.total))
                                  : fmt::format("all {} parameters (freeze-tuning's trained share is not known: an upper bound)",
                                                parameters_text(split.total));
    return split;
  }
  if (shape.linears.empty()) {
    return Missing{MissingReason::not_present,
                   "LoRA's trainable parameters depend on the model's layers; give the model's directory (--model DIR) "
                   "rather than a parameter count"};
  }
  double adapters = 0;
  std::vector<std::string> adapted;
  for (const auto& linear : shape.linears) {
    if (!targeted(linear, setup.lora_targets)) continue;
    adapters += static_cast<double>(setup.lora_rank) * static_cast<double>(linear.in_features + linear.out_features) *
                static_cast<double>(linear.count);
    adapted.push_back(linear.name);
  }
  if (adapters == 0) {
    return Missing{MissingReason::not_present,
                   fmt::format("no linear layer of the model matches the LoRA targets ({})", fmt::join(setup.lora_targets, ", "))};
  }
  split.trainable = adapters;
  split.frozen = split.total;  // the base stays whole; the adapters come on top
  split.total += adapters;
  split.frozen_bytes_per_weight = setup.finetune == Finetune::qlora ? kFourBitBytesPerWeight : training_bytes;
  split.trainable_formula =
      fmt::format("rank {} x (in + out) over {}: {}", setup.lora_rank, fmt::join(adapted, ", "), parameters_text(adapters));
  return split;
}

}  // namespace ftdiag::estimate
