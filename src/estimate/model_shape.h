// The shape of a model, as far as memory is concerned: how many parameters
// its state dict holds, the largest module (DeepSpeed's "largest layer"),
// and the transformer dimensions activations and LoRA adapters depend on.
//
// Pure functions, no system access: the collectors read config.json and the
// safetensors headers into flattened settings (collect/weights/model_weights.h), and
// these functions turn settings into a shape.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"

namespace ftdiag::estimate {

// One kind of linear layer repeated through the model ("q_proj" in each of
// 32 decoder layers): what a LoRA adapter on it adds is rank * (in + out)
// per copy.
struct LinearWeights {
  std::string name;  // the module's last name component: "q_proj", "query_key_value", "w1"
  std::uint64_t in_features = 0;
  std::uint64_t out_features = 0;
  std::uint64_t count = 0;  // copies in the whole model (layers x experts)

  bool operator==(const LinearWeights&) const = default;
};

struct ModelShape {
  // config.json's model_type ("llama", "qwen2", "mixtral", ...), or empty.
  std::string architecture;
  // Every tensor of the state dict, trainable and frozen; tied tensors once.
  std::uint64_t parameters = 0;
  // The most parameters one module holds directly (DeepSpeed's
  // largest_layer_params; in an LLM usually the embedding, vocab x hidden).
  std::uint64_t largest_layer_parameters = 0;
  // Bytes per parameter as the weights are stored (2 for bf16/fp16, 4 for
  // fp32, about 0.5 for 4-bit); 0 when unknown.
  double stored_bytes_per_parameter = 0;
  std::string stored_dtype;  // "bf16", "fp16", "fp32", "int4", ... or empty

  // Transformer dimensions; 0 when unknown (a bare --params count).
  std::uint64_t hidden = 0;
  std::uint64_t layers = 0;
  std::uint64_t heads = 0;
  std::uint64_t kv_heads = 0;
  std::uint64_t head_dim = 0;
  std::uint64_t intermediate = 0;  // the MLP's inner width (per expert for MoE)
  std::uint64_t vocab = 0;
  std::uint64_t experts = 0;            // MoE: experts per layer; 0 for a dense model
  std::uint64_t experts_per_token = 0;  // MoE: experts each token is routed to
  std::uint64_t shared_expert_intermediate = 0;  // MoE: a shared expert every token passes (Qwen2-MoE); 0: none
  // An encoder and a decoder (T5): the layers count both, and activations
  // depend on the input's and the target's lengths apart.
  bool encoder_decoder = false;
  bool tied_embeddings = false;
  bool gated_mlp = false;  // SwiGLU/GeGLU: three matrices per MLP, not two
  // The config trains with dropout (a probability above 0 in
  // attention_dropout, hidden_dropout, attn_pdrop, resid_pdrop, ...): its
  // masks are kept for the backward. Llama-family configs say 0.
  bool dropout = false;
  // The dimensions are a typical model's of the size, not this model's
  // ("Llama-2-7B"); empty when they are the model's own.
  std::string assumed_from;

  // The linear layers LoRA may target (empty when unknown).
  std::vector<LinearWeights> linears;

  // Where the numbers came from: "safetensors" (exact, from the weights'
  // headers), "config" (formulas of the architecture), "parameters" (a count
  // given by the user).
  std::string source;

  bool has_dimensions() const { return hidden > 0 && layers > 0 && heads > 0 && vocab > 0; }
  bool operator==(const ModelShape&) const = default;
};

// From config.json, flattened to dotted keys as collect::read_json_settings
// gives it ("hidden_size" -> "4096", "text_config.hidden_size" -> ...).
// Knows Llama, Mistral, Mixtral, Qwen2, Qwen2-MoE, Qwen3, Qwen3-MoE, Gemma,
// Gemma 2, GPT-NeoX, Baichuan (1 and 2), ChatGLM2/3 and GLM-4, T5 (v1 and
// the gated v1.1 / Flan-T5) and BERT (by model_type, else
// architectures[0], else their telltale keys), and counts every tensor of
// their state dicts as transformers' modeling code builds them (published
// counts reproduce exactly; tests/unit/estimate/test_model_shape.cpp).
// Stored dtype: a quantization_config's (int4 at 0.5 byte a parameter: the
// codes alone, the block scales and unquantized layers not counted), else
// torch_dtype (or dtype). Missing: unsupported for another model_type or a
// multimodal config (text_config), whose weights give the count instead;
// unparseable naming the key that is absent, not a number, zero or beyond
// any model's size.
Fact<ModelShape> shape_from_config(const std::map<std::string, std::string>& config);

// From the settings of a "model-weights" source (collect/weights/model_weights.h:
// the safetensors headers summarised), refined by a config's shape when one
// is known (dimensions come from it; counts from the weights). Linears are
// the weights' where they list them, the config's for the others (a
// bitsandbytes 4-bit weight hides its shape); stored_bytes_per_parameter is
// the weights' bytes over their parameters. Missing: not_present without a
// parameter count, unsupported for GPTQ/AWQ weights (their count needs the
// bit width), unparseable for a malformed linear.<name>.
Fact<ModelShape> shape_from_weights(const std::map<std::string, std::string>& weights, const ModelShape* from_config);

// A count as people write it: "7B", "1.5b", "350M", "6.7 B", "70e9",
// "7000000000", "13 billion" (K, M, B or T, any case; rounded to a whole
// count). Missing(unparseable) saying why: not a count, negative, zero, not
// whole without a suffix ("1.5"), or over 1e14.
Fact<std::uint64_t> parse_parameter_count(std::string_view text);

// A shape with only a count (--params): the largest layer and dimensions are
// unknown, so the estimates that need them say so.
ModelShape shape_from_count(std::uint64_t parameters);

// A bare count with the dimensions of a well-known decoder of about that
// size (Qwen2.5 from 0.5B to 3B and at 14B and 32B, Llama 2 at 7B, 13B and
// 70B, Llama 3 at 8B, Qwen1.5 at 110B: the nearest by size), so
// activations and LoRA's adapters can be counted; `assumed_from` names it.
// The count stays the one given.
ModelShape assumed_decoder_shape(std::uint64_t parameters);

}  // namespace ftdiag::estimate
