#include "estimate/activations.h"

#include <fmt/format.h>

namespace ftdiag::estimate {

double layer_activation_bytes(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options) {
  const double s = static_cast<double>(setup.sequence_length);
  const double b = static_cast<double>(setup.micro_batch);
  const double h = static_cast<double>(shape.hidden);
  const double a = static_cast<double>(shape.heads);
  const double head_dim = shape.head_dim ? static_cast<double>(shape.head_dim) : h / a;
  const double kv_width = static_cast<double>(shape.kv_heads ? shape.kv_heads : shape.heads) * head_dim;
  const double q_width = a * head_dim;
  const double inner = static_cast<double>(shape.intermediate ? shape.intermediate : 4 * shape.hidden);
  const double mask = options.dropout ? 1 : 0;

  // Attention: the QKV projection's input, Q and K for the scores, V, the
  // output projection's input, the output dropout's mask.
  double attention = 2 * s * b * h + 2 * s * b * (q_width + kv_width) + 2 * s * b * kv_width + 2 * s * b * q_width +
                     mask * s * b * h;
  if (setup.attention == Attention::eager) {
    // The softmax's output, and with dropout its mask and output.
    attention += 2 * a * s * s * b + mask * 3 * a * s * s * b;
  } else {
    attention += 4 * a * s * b;  // the log-sum-exp flash attention keeps per head and position
  }

  double mlp = shape.gated_mlp ? 2 * s * b * h + 8 * s * b * inner : 2 * s * b * h + 4 * s * b * inner + mask * s * b * h;
  if (shape.experts > 0) mlp *= static_cast<double>(shape.experts_per_token ? shape.experts_per_token : 1);

  const double norms = 4 * s * b * h;
  return attention + mlp + norms;
}

Fact<Activations> activations_per_gpu(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options) {
  if (!shape.has_dimensions()) {
    return Missing{MissingReason::not_present,
                   "activations depend on the model's dimensions (hidden size, layers, heads, vocabulary), which a bare "
                   "parameter count does not give, nor a config.json of an architecture ftdiag does not know: give a "
                   "known model's directory (--model DIR)"};
  }
  const double s = static_cast<double>(setup.sequence_length);
  const double b = static_cast<double>(setup.micro_batch);
  const double h = static_cast<double>(shape.hidden);
  const double layers = static_cast<double>(shape.layers);
  const double vocab = static_cast<double>(shape.vocab);

  Activations out;
  out.per_layer = layer_activation_bytes(shape, setup, options);
  out.output_layer = {"output layer", 2 * s * b * h + 6 * s * b * vocab,
                      fmt::format("2·s·b·h + 6·s·b·V, s={} b={} h={} V={}", setup.sequence_length, setup.micro_batch,
                                  shape.hidden, shape.vocab)};
  const std::string attention = setup.attention == Attention::eager ? "eager attention" : "flash attention";
  out.without_checkpointing = {"activations", layers * out.per_layer + out.output_layer.bytes,
                               fmt::format("{} layers x {} per layer ({}, s={}, b={}) + output layer {}", shape.layers,
                                           size_text(out.per_layer), attention, setup.sequence_length,
                                           setup.micro_batch, size_text(out.output_layer.bytes))};
  const double kept_inputs = layers * 2 * s * b * h;
  out.with_checkpointing = {"activations", kept_inputs + out.per_layer + out.output_layer.bytes,
                            fmt::format("gradient checkpointing: {} layer inputs (2·s·b·h each) {} + one layer recomputed {} "
                                        "+ output layer {}",
                                        shape.layers, size_text(kept_inputs), size_text(out.per_layer),
                                        size_text(out.output_layer.bytes))};
  return out;
}

}  // namespace ftdiag::estimate
