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

// The parameters of one decoder layer: the linear layers every layer has
// (their count is the number of layers), without biases and norms.
double decoder_layer_parameters(const ModelShape& shape) {
  double per_layer = 0;
  for (const auto& linear : shape.linears) {
    if (shape.layers == 0 || linear.count % shape.layers != 0 || !adapted_by_default(linear.name)) continue;
    per_layer += static_cast<double>(linear.in_features) * static_cast<double>(linear.out_features) *
                 static_cast<double>(linear.count / shape.layers);  // an MoE layer's experts too
  }
  return per_layer;
}

}  // namespace

double quantized_bytes_per_weight(int bits) {
  if (bits >= 8) return kEightBitBytesPerWeight;
  if (bits <= 2) return kTwoBitBytesPerWeight;
  return kFourBitBytesPerWeight;
}

Fact<ParameterSplit> split_parameters(const ModelShape& shape, const TrainingSetup& setup) {
  ParameterSplit split;
  split.total = static_cast<double>(shape.parameters);
  const double training_bytes = bytes_per_weight(setup.precision);
  if (setup.finetune == Finetune::full) {
    split.trainable = split.total;
    split.frozen_bytes_per_weight = training_bytes;
    split.trainable_formula = fmt::format("all {} parameters", parameters_text(split.total));
    return split;
  }
  if (setup.trainable_parameters > 0) {
    // A count the job printed: for LoRA the adapters come on top of the
    // base, for freeze-tuning they are part of it.
    const bool adapters = setup.finetune == Finetune::lora || setup.finetune == Finetune::qlora;
    split.trainable = adapters ? setup.trainable_parameters : std::min(split.total, setup.trainable_parameters);
    split.frozen = split.total - (adapters ? 0 : split.trainable);
    if (adapters) split.total += split.trainable;
    split.frozen_bytes_per_weight =
        setup.finetune == Finetune::qlora ? quantized_bytes_per_weight(setup.quantization_bits) : training_bytes;
    split.trainable_formula = fmt::format("{} (given)", parameters_text(split.trainable));
    return split;
  }
  if (setup.finetune == Finetune::freeze) {
    const double per_layer = decoder_layer_parameters(shape);
    if (per_layer == 0 || shape.layers == 0) {
      // Without its layers the trained share is not known: all of it, an upper bound, said.
      split.trainable = split.total;
      split.frozen_bytes_per_weight = training_bytes;
      split.trainable_formula = fmt::format(
          "all {} parameters (freeze-tuning's trained layers are not known without the model's layers: an upper bound)",
          parameters_text(split.total));
      return split;
    }
    const auto layers = std::min<std::uint64_t>(setup.freeze_trainable_layers, shape.layers);
    split.trainable = std::min(split.total, per_layer * static_cast<double>(layers));
    split.frozen = split.total - split.trainable;
    split.frozen_bytes_per_weight = training_bytes;
    split.trainable_formula = fmt::format("the last {} of {} decoder layers: {}", layers, shape.layers,
                                          parameters_text(split.trainable));
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
  split.frozen_bytes_per_weight =
      setup.finetune == Finetune::qlora ? quantized_bytes_per_weight(setup.quantization_bits) : training_bytes;
  split.trainable_formula =
      fmt::format("rank {} x (in + out) over {}: {}", setup.lora_rank, fmt::join(adapted, ", "), parameters_text(adapters));
  return split;
}

}  // namespace ftdiag::estimate
