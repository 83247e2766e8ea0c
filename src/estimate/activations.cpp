#include "estimate/activations.h"

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

double tensor_parallel_degree(const TrainingSetup& setup) {
  return static_cast<double>(setup.tensor_parallel ? setup.tensor_parallel : 1);
}

// What sequence parallelism splits: the layer's input and norms, the
// dropouts after attention and MLP (the paper's "10" under t alone).
double sequence_split(const TrainingSetup& setup) { return setup.sequence_parallel ? tensor_parallel_degree(setup) : 1; }

}  // namespace

double layer_activation_bytes(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options) {
  const double s = static_cast<double>(setup.sequence_length);
  const double b = static_cast<double>(setup.micro_batch);
  const double h = static_cast<double>(shape.hidden);
  const double a = static_cast<double>(shape.heads);
  const double head_dim = shape.head_dim ? static_cast<double>(shape.head_dim) : h / a;
  const double kv_width = static_cast<double>(shape.kv_heads ? shape.kv_heads : shape.heads) * head_dim;
  const double q_width = a * head_dim;
  const double inner = static_cast<double>(shape.intermediate ? shape.intermediate : 4 * shape.hidden);
  const double mask = (options.dropout || setup.dropout || shape.dropout) ? 1 : 0;
  const double e = bytes_per_activation(setup.precision);  // dropout masks are 1 byte
  const double t = tensor_parallel_degree(setup);
  const double sp = sequence_split(setup);

  // Outside the split matrices (split only by sequence parallelism): the
  // QKV projection's input, the attention's output dropout mask, the MLP's
  // input and its dropout mask, the two norms' inputs.
  double replicated = e * s * b * h + mask * s * b * h + e * s * b * h + 4 * s * b * h * (e / 2);
  if (!shape.gated_mlp) replicated += mask * s * b * h;

  // Inside them (split by t): Q and K for the scores, V, the output
  // projection's input; the MLP's inner activations.
  double split = e * s * b * (q_width + kv_width) + e * s * b * kv_width + e * s * b * q_width;
  const bool keeps_scores = setup.attention == Attention::eager && !setup.selective_recompute;
  if (keeps_scores) {
    // The softmax's output, and with dropout its mask and output.
    split += e * a * s * s * b + mask * (1 + e) * a * s * s * b;
  } else if (setup.attention == Attention::flash) {
    split += 4 * a * s * b;  // the log-sum-exp flash attention keeps per head and position
  }
  double mlp = shape.gated_mlp ? 4 * e * s * b * inner : 2 * e * s * b * inner;
  if (shape.experts > 0) {
    const double routed = static_cast<double>(shape.experts_per_token ? shape.experts_per_token : 1);
    mlp *= routed;
    replicated += (routed - 1) * e * s * b * h;  // each routed copy of the MLP's input
    if (shape.shared_expert_intermediate > 0) {  // the shared expert every token passes, and its input
      const double shared = static_cast<double>(shape.shared_expert_intermediate);
      mlp += shape.gated_mlp ? 4 * e * s * b * shared : 2 * e * s * b * shared;
      replicated += e * s * b * h;
    }
  }
  split += mlp;
  return replicated / sp + split / t;
}

Fact<Activations> activations_per_gpu(const ModelShape& shape, const TrainingSetup& setup, const ActivationOptions& options) {
  if (!shape.has_dimensions()) {
    return Missing{MissingReason::not_present,
                   "activations depend on the model's dimensions (hidden size, layers, heads, vocabulary), which a bare "
                   "parameter count does not give, nor a config.json of an architecture ftdiag does not know: give a "
                   "known model's directory (--model DIR)"};
  }
  if (shape.encoder_decoder) {
    return Missing{MissingReason::not_present,
                   fmt::format("{} is an encoder-decoder model: its activations depend on the input's and the target's "
                               "lengths apart and on the decoder's cross-attention, which the per-layer model of a "
                               "decoder (Korthikanti et al.) does not cover",
                               shape.architecture.empty() ? std::string("the model") : shape.architecture)};
  }
  const double s = static_cast<double>(setup.sequence_length);
  const double b = static_cast<double>(setup.micro_batch);
  const double h = static_cast<double>(shape.hidden);
  const double layers = static_cast<double>(shape.layers);
  const double vocab = static_cast<double>(shape.vocab);

  const double e = bytes_per_activation(setup.precision);  // dropout masks are 1 byte
  const double tp = tensor_parallel_degree(setup);
  const double sp = sequence_split(setup);

  Activations out;
  out.per_layer = layer_activation_bytes(shape, setup, options);
  // The head's input, its logits (split over the vocabulary by tensor
  // parallelism) and their fp32 copy for the loss.
  const double logits_bytes = e == 2 ? 6 : 8;
  out.output_layer = {"output layer", e * s * b * h / sp + logits_bytes * s * b * vocab / tp,
                      fmt::format("{}·s·b·h + {}·s·b·V{}, s={} b={} h={} V={}", e, logits_bytes,
                                  tp > 1 ? fmt::format(" / t={}", setup.tensor_parallel) : std::string(),
                                  setup.sequence_length, setup.micro_batch, shape.hidden, shape.vocab)};
  std::string attention = setup.attention == Attention::eager ? "eager attention" : "flash attention";
  if (setup.attention == Attention::eager && setup.selective_recompute) attention += ", scores recomputed";
  if (tp > 1) attention += fmt::format(", t={}{}", setup.tensor_parallel, setup.sequence_parallel ? " with sequence parallelism" : "");
  out.without_checkpointing = {"activations", layers * out.per_layer + out.output_layer.bytes,
                               fmt::format("{} layers x {} per layer ({}, s={}, b={}) + output layer {}", shape.layers,
                                           size_text(out.per_layer), attention, setup.sequence_length,
                                           setup.micro_batch, size_text(out.output_layer.bytes))};
  // Korthikanti et al.'s "full recompute" figure: the layers' inputs.
  const double kept_inputs = layers * e * s * b * h / sp;
  out.layer_inputs = kept_inputs;
  out.with_checkpointing = {"activations", kept_inputs + out.per_layer + out.output_layer.bytes,
                            fmt::format("gradient checkpointing: {} layer inputs ({}·s·b·h each) {} + one layer recomputed {} "
                                        "+ output layer {}",
                                        shape.layers, e, size_text(kept_inputs), size_text(out.per_layer),
                                        size_text(out.output_layer.bytes))};
  return out;
}

}  // namespace ftdiag::estimate
