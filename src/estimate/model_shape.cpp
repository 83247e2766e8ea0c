#include "estimate/model_shape.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include <fmt/format.h>

namespace ftdiag::estimate {
namespace {

using Settings = std::map<std::string, std::string>;

Missing unparseable(std::string detail) { return Missing{MissingReason::unparseable, std::move(detail)}; }
Missing unsupported(std::string detail) { return Missing{MissingReason::unsupported, std::move(detail)}; }

// Text from a file, printable and bounded, before it reaches a detail (which
// ends up in JSON documents).
std::string shown(std::string_view text) {
  constexpr std::size_t kMax = 80;
  std::string out;
  for (char c : text.substr(0, kMax)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  if (text.size() > kMax) out += "...";
  return out;
}

std::optional<std::uint64_t> whole_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Bounds on what a config may say. Real models stay far below them (hidden
// sizes ~10^4, vocabularies ~2.6x10^5, ~130 layers, a few hundred experts);
// within them no count below can overflow 64 bits: a linear is at most
// 2^21 x 2^20, repeated at most 2^10 x 2^10 times, a handful of times over.
constexpr std::uint64_t kMaxWidth = std::uint64_t{1} << 20;
constexpr std::uint64_t kMaxVocabulary = std::uint64_t{1} << 22;
constexpr std::uint64_t kMaxLayers = std::uint64_t{1} << 10;
constexpr std::uint64_t kMaxExperts = std::uint64_t{1} << 10;

// Typed reads of the flattened config.json; the first problem is kept and
// the reads after it go on, so a caller checks once.
class ConfigReader {
 public:
  ConfigReader(const Settings& config, std::string_view model_type) : config_(config), model_type_(model_type) {}

  // The value, or nullopt when absent or null (HF writes "head_dim": null).
  std::optional<std::string_view> text(std::string_view key) const {
    const auto found = config_.find(std::string(key));
    if (found == config_.end() || found->second == "null") return std::nullopt;
    return found->second;
  }

  std::optional<std::uint64_t> optional(std::string_view key, std::uint64_t limit = kMaxWidth) {
    const auto value = text(key);
    if (!value) return std::nullopt;
    const auto number = whole_number(*value);
    if (!number) return fail(fmt::format("config.json's {} is \"{}\", not a whole number", key, shown(*value)));
    if (*number == 0) return fail(fmt::format("config.json's {} is 0", key));
    if (*number > limit) return fail(fmt::format("config.json's {} is {}, over any model's ({})", key, *number, limit));
    return number;
  }

  std::uint64_t required(std::string_view key, std::uint64_t limit = kMaxWidth) {
    if (!text(key)) {
      fail(fmt::format("config.json has no {}, which a {} config has", key, model_type_));
      return 0;
    }
    return optional(key, limit).value_or(0);
  }

  bool flag(std::string_view key, bool fallback) {
    const auto value = text(key);
    if (!value) return fallback;
    if (*value == "true" || *value == "false") return *value == "true";
    fail(fmt::format("config.json's {} is \"{}\", not true or false", key, shown(*value)));
    return fallback;
  }

  std::nullopt_t fail(std::string detail) {
    if (!problem_) problem_ = unparseable(std::move(detail));
    return std::nullopt;
  }
  const std::optional<Missing>& problem() const { return problem_; }

 private:
  const Settings& config_;
  std::string_view model_type_;
  std::optional<Missing> problem_;
};

// ---- what an architecture holds ----------------------------------------------

enum class Family { llama_like, gpt_neox, chatglm, t5, bert };

// How a decoder's MLP is a mixture of experts (transformers' modeling_*.py).
enum class Mixture {
  none,
  // Mixtral: block_sparse_moe.gate, and experts w1/w3 (hidden -> intermediate)
  // and w2, in every layer (num_local_experts, num_experts_per_tok).
  mixtral,
  // Qwen2-MoE and Qwen3-MoE: mlp.gate, and experts gate_proj/up_proj/
  // down_proj of moe_intermediate_size (num_experts, num_experts_per_tok) in
  // every decoder_sparse_step-th layer not in mlp_only_layers, the others a
  // dense MLP of intermediate_size; Qwen2-MoE adds a shared expert of
  // shared_expert_intermediate_size and its one-output gate.
  qwen,
};

// How a Llama-like decoder departs from Llama (transformers' modeling_*.py).
struct LlamaTraits {
  bool qkv_bias = false;         // q/k/v biases whatever the config says (Qwen2)
  bool packed_qkv = false;       // one W_pack for q, k and v (Baichuan)
  bool qk_norm = false;          // RMSNorm over each head's q and k (Qwen3)
  std::uint64_t norms_per_layer = 2;
  bool tied_by_default = false;  // the config class's tie_word_embeddings default
  Mixture mixture = Mixture::none;
  bool shared_expert = false;    // Qwen2-MoE's shared expert and its gate
};

struct Architecture {
  std::string_view model_type;
  Family family;
  LlamaTraits traits;
};

constexpr Architecture kArchitectures[] = {
    {"llama", Family::llama_like, {}},
    {"mistral", Family::llama_like, {}},
    {"mixtral", Family::llama_like, {.mixture = Mixture::mixtral}},
    {"qwen2", Family::llama_like, {.qkv_bias = true}},
    {"qwen2_moe", Family::llama_like, {.qkv_bias = true, .mixture = Mixture::qwen, .shared_expert = true}},
    {"qwen3", Family::llama_like, {.qk_norm = true}},
    {"qwen3_moe", Family::llama_like, {.qk_norm = true, .mixture = Mixture::qwen}},
    {"gemma", Family::llama_like, {.tied_by_default = true}},
    // Gemma 2 norms before and after both attention and MLP.
    {"gemma2", Family::llama_like, {.norms_per_layer = 4, .tied_by_default = true}},
    // Baichuan 2's NormHead normalises lm_head's rows at run time: the same
    // vocab x hidden weight. Baichuan-13B's ALiBi has no parameters.
    {"baichuan", Family::llama_like, {.packed_qkv = true}},
    {"gpt_neox", Family::gpt_neox, {}},
    {"chatglm", Family::chatglm, {}},
    {"t5", Family::t5, {}},
    {"bert", Family::bert, {}},
};

// For configs without model_type: the class in architectures[0].
constexpr std::pair<std::string_view, std::string_view> kModelClasses[] = {
    {"LlamaForCausalLM", "llama"},       {"MistralForCausalLM", "mistral"},   {"MixtralForCausalLM", "mixtral"},
    {"Qwen2ForCausalLM", "qwen2"},       {"Qwen3ForCausalLM", "qwen3"},       {"GemmaForCausalLM", "gemma"},
    {"Gemma2ForCausalLM", "gemma2"},     {"GPTNeoXForCausalLM", "gpt_neox"},  {"BaichuanForCausalLM", "baichuan"},
    {"BaiChuanForCausalLM", "baichuan"}, {"ChatGLMModel", "chatglm"},         {"ChatGLMForConditionalGeneration", "chatglm"},
    {"Qwen2MoeForCausalLM", "qwen2_moe"}, {"Qwen3MoeForCausalLM", "qwen3_moe"}, {"T5ForConditionalGeneration", "t5"},
    {"T5Model", "t5"},                   {"BertModel", "bert"},               {"BertForMaskedLM", "bert"},
    {"BertForPreTraining", "bert"},      {"BertForSequenceClassification", "bert"},
};

const Architecture* architecture_named(std::string_view model_type) {
  for (const auto& architecture : kArchitectures) {
    if (architecture.model_type == model_type) return &architecture;
  }
  return nullptr;
}

std::string known_model_types() {
  std::vector<std::string_view> names;
  for (const auto& architecture : kArchitectures) names.push_back(architecture.model_type);
  return fmt::format("{}", fmt::join(names, ", "));
}

bool has_key_under(const Settings& config, std::string_view prefix) {
  const auto first = config.lower_bound(std::string(prefix));
  return first != config.end() && first->first.starts_with(prefix);
}

// The model type config.json states, else the one its architectures[0] or
// its telltale keys imply; empty when none.
std::string model_type_of(const Settings& config) {
  if (auto found = config.find("model_type"); found != config.end()) return found->second;
  if (auto found = config.find("architectures.0"); found != config.end()) {
    for (const auto& [name, model_type] : kModelClasses) {
      if (name == found->second) return std::string(model_type);
    }
  }
  if (config.contains("multi_query_group_num") || config.contains("padded_vocab_size")) return "chatglm";
  if (config.contains("num_local_experts")) return "mixtral";
  if (config.contains("rotary_pct")) return "gpt_neox";
  return {};
}

Fact<const Architecture*> architecture_of(const Settings& config) {
  const std::string model_type = model_type_of(config);
  if (const auto* known = architecture_named(model_type)) return known;
  const std::string named =
      model_type.empty() ? std::string("config.json") : fmt::format("model_type \"{}\"", shown(model_type));
  if (has_key_under(config, "text_config.")) {
    return unsupported(fmt::format("{} describes a multimodal model (text_config): its vision tower is not counted "
                                   "from config.json; its safetensors weights give the exact count",
                                   named));
  }
  return unsupported(fmt::format("{} names no architecture whose parameters ftdiag computes from config.json ({}); "
                                 "its safetensors weights give the exact count",
                                 named, known_model_types()));
}

// ---- counting -----------------------------------------------------------------

struct Dimensions {
  std::uint64_t hidden = 0, layers = 0, heads = 0, kv_heads = 0, head_dim = 0, intermediate = 0, vocab = 0;
  std::uint64_t experts = 0, experts_per_token = 0;
  // Qwen-style mixtures: the experts' width (intermediate is the dense
  // layers'), the shared expert's, and how many layers are sparse.
  std::uint64_t expert_intermediate = 0, shared_intermediate = 0, sparse_layers = 0;
  bool tied = false;
};

ModelShape shape_with(const Dimensions& d, std::string_view model_type, bool gated_mlp) {
  ModelShape shape;
  shape.architecture = std::string(model_type);
  shape.hidden = d.hidden;
  shape.layers = d.layers;
  shape.heads = d.heads;
  shape.kv_heads = d.kv_heads;
  shape.head_dim = d.head_dim;
  shape.intermediate = d.intermediate;
  shape.vocab = d.vocab;
  shape.experts = d.experts;
  shape.experts_per_token = d.experts_per_token;
  shape.shared_expert_intermediate = d.shared_intermediate;
  shape.tied_embeddings = d.tied;
  shape.gated_mlp = gated_mlp;
  shape.source = "config";
  return shape;
}

// `copies` modules of `each` parameters (a norm in every layer, an embedding).
void add_modules(ModelShape& shape, std::uint64_t each, std::uint64_t copies) {
  shape.parameters += each * copies;
  shape.largest_layer_parameters = std::max(shape.largest_layer_parameters, each);
}

// `copies` nn.Linear(in, out): the weight, and the bias when it has one.
void add_linear(ModelShape& shape, std::string name, std::uint64_t in, std::uint64_t out, std::uint64_t copies,
                bool bias) {
  shape.linears.push_back(LinearWeights{std::move(name), in, out, copies});
  add_modules(shape, in * out + (bias ? out : 0), copies);
}

// The attention's widths: queries heads x head_dim, keys and values
// kv_heads x head_dim (GQA). head_dim is hidden / heads unless stated
// (Gemma: 256 whatever the width).
void read_heads(ConfigReader& config, Dimensions& d, std::string_view heads_key, std::string_view head_dim_key) {
  d.heads = config.required(heads_key);
  if (d.hidden == 0 || d.heads == 0) return;
  if (auto head_dim = config.optional(head_dim_key)) {
    d.head_dim = *head_dim;
  } else if (d.hidden % d.heads != 0) {
    config.fail(fmt::format("config.json's hidden_size {} is not a multiple of its {} heads", d.hidden, d.heads));
  } else {
    d.head_dim = d.hidden / d.heads;
  }
  if (d.kv_heads == 0) d.kv_heads = d.heads;
  if (d.heads * d.head_dim > kMaxWidth || d.kv_heads * d.head_dim > kMaxWidth) {
    config.fail(fmt::format("config.json's {} heads of {} is wider than any model", d.heads, d.head_dim));
  }
}

// What every transformer config of the Hugging Face naming states: width,
// layers, the MLP's width, vocabulary and heads.
Dimensions common_dimensions(ConfigReader& config) {
  Dimensions d;
  d.hidden = config.required("hidden_size");
  d.layers = config.required("num_hidden_layers", kMaxLayers);
  d.intermediate = config.required("intermediate_size");
  d.vocab = config.required("vocab_size", kMaxVocabulary);
  return d;
}

std::optional<Dimensions> llama_dimensions(ConfigReader& config, const LlamaTraits& traits) {
  Dimensions d = common_dimensions(config);
  d.kv_heads = config.optional("num_key_value_heads").value_or(0);
  read_heads(config, d, "num_attention_heads", "head_dim");
  if (traits.mixture == Mixture::mixtral) {
    d.experts = config.required("num_local_experts", kMaxExperts);
    d.experts_per_token = config.required("num_experts_per_tok", kMaxExperts);
    d.sparse_layers = d.layers;
  } else if (traits.mixture == Mixture::qwen) {
    d.experts = config.required("num_experts", kMaxExperts);
    d.experts_per_token = config.required("num_experts_per_tok", kMaxExperts);
    d.expert_intermediate = config.required("moe_intermediate_size");
    if (traits.shared_expert) d.shared_intermediate = config.optional("shared_expert_intermediate_size").value_or(0);
    const std::uint64_t step = config.optional("decoder_sparse_step", kMaxLayers).value_or(1);
    std::set<std::uint64_t> dense_only;
    for (std::uint64_t i = 0; i < kMaxLayers; ++i) {
      const auto layer = config.text(fmt::format("mlp_only_layers.{}", i));
      if (!layer) break;
      if (auto index = whole_number(*layer)) dense_only.insert(*index);
    }
    for (std::uint64_t layer = 0; layer < d.layers; ++layer) {
      if (!dense_only.contains(layer) && (layer + 1) % step == 0) ++d.sparse_layers;
    }
  }
  d.tied = config.flag("tie_word_embeddings", traits.tied_by_default);
  if (config.problem()) return std::nullopt;
  return d;
}

// A router (block_sparse_moe.gate) and experts of three matrices each, as
// Mixtral names them: w1 and w3 hidden -> intermediate, w2 back.
void add_mixtral_experts(ModelShape& shape, const Dimensions& d) {
  add_linear(shape, "gate", d.hidden, d.experts, d.layers, false);
  add_linear(shape, "w1", d.hidden, d.intermediate, d.layers * d.experts, false);
  add_linear(shape, "w2", d.intermediate, d.hidden, d.layers * d.experts, false);
  add_linear(shape, "w3", d.hidden, d.intermediate, d.layers * d.experts, false);
}

// A SwiGLU MLP (gate_proj, up_proj, down_proj) of `inner`, `copies` times.
void add_gated_mlp(ModelShape& shape, std::uint64_t hidden, std::uint64_t inner, std::uint64_t copies, bool bias) {
  if (copies == 0) return;
  add_linear(shape, "gate_proj", hidden, inner, copies, bias);
  add_linear(shape, "up_proj", hidden, inner, copies, bias);
  add_linear(shape, "down_proj", inner, hidden, copies, bias);
}

// Qwen2-MoE / Qwen3-MoE: in each sparse layer mlp.gate and the experts
// (and Qwen2-MoE's shared_expert with its shared_expert_gate); the other
// layers a dense MLP.
void add_qwen_experts(ModelShape& shape, const Dimensions& d) {
  add_linear(shape, "gate", d.hidden, d.experts, d.sparse_layers, false);
  add_gated_mlp(shape, d.hidden, d.expert_intermediate, d.sparse_layers * d.experts, false);
  if (d.shared_intermediate > 0) {
    add_gated_mlp(shape, d.hidden, d.shared_intermediate, d.sparse_layers, false);
    add_linear(shape, "shared_expert_gate", d.hidden, 1, d.sparse_layers, false);
  }
  add_gated_mlp(shape, d.hidden, d.intermediate, d.layers - d.sparse_layers, false);
}

// Llama: embed_tokens; per layer q/k/v/o, gate/up/down (SwiGLU) and RMSNorms;
// the final norm; lm_head unless tied.
Fact<ModelShape> llama_like_shape(ConfigReader& config, const Architecture& architecture) {
  const auto& traits = architecture.traits;
  const auto d = llama_dimensions(config, traits);
  const bool attention_bias = config.flag("attention_bias", false);
  const bool mlp_bias = config.flag("mlp_bias", false);
  if (!d || config.problem()) return *config.problem();
  ModelShape shape = shape_with(*d, architecture.model_type, true);
  const std::uint64_t q_out = d->heads * d->head_dim;
  const std::uint64_t kv_out = d->kv_heads * d->head_dim;
  add_modules(shape, d->vocab * d->hidden, 1);
  if (traits.packed_qkv) {
    add_linear(shape, "W_pack", d->hidden, q_out + 2 * kv_out, d->layers, false);
  } else {
    const bool qkv_bias = attention_bias || traits.qkv_bias;
    add_linear(shape, "q_proj", d->hidden, q_out, d->layers, qkv_bias);
    add_linear(shape, "k_proj", d->hidden, kv_out, d->layers, qkv_bias);
    add_linear(shape, "v_proj", d->hidden, kv_out, d->layers, qkv_bias);
  }
  add_linear(shape, "o_proj", q_out, d->hidden, d->layers, attention_bias);
  if (traits.qk_norm) add_modules(shape, d->head_dim, 2 * d->layers);
  switch (traits.mixture) {
    case Mixture::mixtral: add_mixtral_experts(shape, *d); break;
    case Mixture::qwen:
      add_qwen_experts(shape, *d);
      // Activations and LoRA count an expert's width.
      shape.intermediate = d->expert_intermediate;
      break;
    case Mixture::none: add_gated_mlp(shape, d->hidden, d->intermediate, d->layers, mlp_bias); break;
  }
  add_modules(shape, d->hidden, traits.norms_per_layer * d->layers);
  add_modules(shape, d->hidden, 1);
  if (!d->tied) add_modules(shape, d->vocab * d->hidden, 1);
  return shape;
}

// GPT-NeoX (Pythia): embed_in; per layer two LayerNorms (weight and bias),
// query_key_value and dense (biased unless attention_bias is false),
// dense_h_to_4h and dense_4h_to_h (biased, not gated); final_layer_norm;
// embed_out unless tied.
Fact<ModelShape> gpt_neox_shape(ConfigReader& config) {
  Dimensions d = common_dimensions(config);
  read_heads(config, d, "num_attention_heads", "head_dim");
  d.tied = config.flag("tie_word_embeddings", false);
  const bool attention_bias = config.flag("attention_bias", true);
  if (config.problem()) return *config.problem();
  ModelShape shape = shape_with(d, "gpt_neox", false);
  add_modules(shape, d.vocab * d.hidden, 1);
  add_linear(shape, "query_key_value", d.hidden, 3 * d.heads * d.head_dim, d.layers, attention_bias);
  add_linear(shape, "dense", d.heads * d.head_dim, d.hidden, d.layers, attention_bias);
  add_linear(shape, "dense_h_to_4h", d.hidden, d.intermediate, d.layers, true);
  add_linear(shape, "dense_4h_to_h", d.intermediate, d.hidden, d.layers, true);
  add_modules(shape, 2 * d.hidden, 2 * d.layers);
  add_modules(shape, 2 * d.hidden, 1);
  if (!d.tied) add_modules(shape, d.vocab * d.hidden, 1);
  return shape;
}

// ChatGLM2/3 and GLM-4 (THUDM's modeling_chatglm.py): embedding; per layer
// query_key_value (heads x kv_channels queries, multi_query_group_num groups
// of keys and values; add_qkv_bias), dense, dense_h_to_4h (SwiGLU: two
// halves) and dense_4h_to_h (add_bias_linear), two norms (RMSNorm, or
// LayerNorm with bias); the final norm (post_layer_norm); output_layer,
// never tied.
Fact<ModelShape> chatglm_shape(ConfigReader& config) {
  if (!config.text("padded_vocab_size") && config.text("inner_hidden_size")) {
    return unsupported("a ChatGLM-6B (first version) config: ftdiag computes ChatGLM2, ChatGLM3 and GLM-4 from "
                       "config.json; its safetensors weights give the exact count");
  }
  Dimensions d;
  d.hidden = config.required("hidden_size");
  d.layers = config.required("num_layers", kMaxLayers);
  d.intermediate = config.required("ffn_hidden_size");
  d.vocab = config.required("padded_vocab_size", kMaxVocabulary);
  if (config.flag("multi_query_attention", false)) d.kv_heads = config.required("multi_query_group_num");
  read_heads(config, d, "num_attention_heads", "kv_channels");
  const bool linear_bias = config.flag("add_bias_linear", false);
  const bool qkv_bias = config.flag("add_qkv_bias", false) || linear_bias;
  const std::uint64_t norm = config.flag("rmsnorm", true) ? d.hidden : 2 * d.hidden;
  const bool final_norm = config.flag("post_layer_norm", true);
  if (config.problem()) return *config.problem();
  ModelShape shape = shape_with(d, "chatglm", true);
  const std::uint64_t q_out = d.heads * d.head_dim;
  add_modules(shape, d.vocab * d.hidden, 1);
  add_linear(shape, "query_key_value", d.hidden, q_out + 2 * d.kv_heads * d.head_dim, d.layers, qkv_bias);
  add_linear(shape, "dense", q_out, d.hidden, d.layers, linear_bias);
  add_linear(shape, "dense_h_to_4h", d.hidden, 2 * d.intermediate, d.layers, linear_bias);
  add_linear(shape, "dense_4h_to_h", d.intermediate, d.hidden, d.layers, linear_bias);
  add_modules(shape, norm, 2 * d.layers);
  if (final_norm) add_modules(shape, norm, 1);
  add_modules(shape, d.vocab * d.hidden, 1);
  return shape;
}

// T5 (modeling_t5.py): the shared embedding (the encoder's and decoder's
// embed_tokens are the same tensor); each encoder block self-attention
// (q, k, v: d_model -> num_heads x d_kv, o back, no biases) and the
// feed-forward (wi, or wi_0 and wi_1 when feed_forward_proj is gated-*,
// and wo), a norm (weight only) before each; each decoder block
// self-attention, cross-attention and the feed-forward, a norm before each;
// the first block of each stack holds the relative_attention_bias
// (relative_attention_num_buckets x num_heads); a final norm per stack;
// lm_head unless tied (tie_word_embeddings, true by default).
Fact<ModelShape> t5_shape(ConfigReader& config) {
  Dimensions d;
  d.hidden = config.required("d_model");
  d.layers = config.required("num_layers", kMaxLayers);
  const std::uint64_t decoder_layers = config.optional("num_decoder_layers", kMaxLayers).value_or(d.layers);
  d.intermediate = config.required("d_ff");
  d.vocab = config.required("vocab_size", kMaxVocabulary);
  d.heads = config.required("num_heads");
  d.head_dim = config.required("d_kv");
  d.kv_heads = d.heads;
  const std::uint64_t buckets = config.optional("relative_attention_num_buckets").value_or(32);
  d.tied = config.flag("tie_word_embeddings", true);
  const auto projection = config.text("feed_forward_proj");
  const bool gated = projection && projection->starts_with("gated-");
  if (config.problem()) return *config.problem();
  const std::uint64_t inner = d.heads * d.head_dim;
  if (inner > kMaxWidth) return unparseable(fmt::format("config.json's {} heads of {} is wider than any model", d.heads, d.head_dim));
  ModelShape shape = shape_with(d, "t5", gated);
  shape.layers = d.layers + decoder_layers;
  shape.encoder_decoder = true;
  add_modules(shape, d.vocab * d.hidden, 1);
  const std::uint64_t attentions = d.layers + 2 * decoder_layers;  // the decoder's blocks attend twice
  add_linear(shape, "q", d.hidden, inner, attentions, false);
  add_linear(shape, "k", d.hidden, inner, attentions, false);
  add_linear(shape, "v", d.hidden, inner, attentions, false);
  add_linear(shape, "o", inner, d.hidden, attentions, false);
  const std::uint64_t feed_forwards = d.layers + decoder_layers;
  if (gated) {
    add_linear(shape, "wi_0", d.hidden, d.intermediate, feed_forwards, false);
    add_linear(shape, "wi_1", d.hidden, d.intermediate, feed_forwards, false);
  } else {
    add_linear(shape, "wi", d.hidden, d.intermediate, feed_forwards, false);
  }
  add_linear(shape, "wo", d.intermediate, d.hidden, feed_forwards, false);
  add_modules(shape, buckets * d.heads, 2);
  add_modules(shape, d.hidden, attentions + feed_forwards + 2);
  if (!d.tied) add_modules(shape, d.vocab * d.hidden, 1);
  return shape;
}

// BERT (modeling_bert.py, BertModel with its pooler): word, position and
// token-type embeddings and their LayerNorm; per layer query, key, value
// and the attention's output dense, the intermediate and output dense (all
// biased), two LayerNorms (weight and bias); the pooler's dense. A head
// on top (masked LM, classification) is not counted: the masked LM's
// decoder is tied to the word embeddings.
Fact<ModelShape> bert_shape(ConfigReader& config) {
  Dimensions d = common_dimensions(config);
  read_heads(config, d, "num_attention_heads", "head_dim");
  const std::uint64_t positions = config.optional("max_position_embeddings", kMaxVocabulary).value_or(512);
  const std::uint64_t token_types = config.optional("type_vocab_size", kMaxVocabulary).value_or(2);
  if (config.problem()) return *config.problem();
  ModelShape shape = shape_with(d, "bert", false);
  shape.tied_embeddings = true;
  add_modules(shape, d.vocab * d.hidden, 1);
  add_modules(shape, positions * d.hidden, 1);
  add_modules(shape, token_types * d.hidden, 1);
  add_modules(shape, 2 * d.hidden, 1);
  add_linear(shape, "query", d.hidden, d.hidden, d.layers, true);
  add_linear(shape, "key", d.hidden, d.hidden, d.layers, true);
  add_linear(shape, "value", d.hidden, d.hidden, d.layers, true);
  // Three modules named "dense" (a LoRA target "dense" takes all three):
  // the attention's output and the pooler's, the intermediate, the output.
  add_linear(shape, "dense", d.hidden, d.hidden, d.layers + 1, true);
  add_linear(shape, "dense", d.hidden, d.intermediate, d.layers, true);
  add_linear(shape, "dense", d.intermediate, d.hidden, d.layers, true);
  add_modules(shape, 2 * d.hidden, 2 * d.layers);
  return shape;
}

// ---- how the weights are stored ------------------------------------------------

struct StoredAs {
  std::string dtype;
  double bytes_per_parameter = 0;
};

std::optional<StoredAs> torch_dtype_storage(std::string_view dtype) {
  if (dtype == "bfloat16") return StoredAs{"bf16", 2};
  if (dtype == "float16" || dtype == "half") return StoredAs{"fp16", 2};
  if (dtype == "float32" || dtype == "float") return StoredAs{"fp32", 4};
  if (dtype == "float64") return StoredAs{"fp64", 8};
  return std::nullopt;
}

// A quantization_config's storage. Its bytes count the quantized codes only
// (0.5 for 4 bits): the per-block scales add ~0.5 bit a parameter
// (bitsandbytes' fp32 absmax per 64; ~0.13 with double quantization; GPTQ's
// group scales and zeros ~0.25), and the embeddings, the LM head and the
// norms usually stay 16-bit, so the true average is a little higher. The
// safetensors weights give the exact bytes.
std::optional<StoredAs> quantized_storage(ConfigReader& config) {
  if (config.flag("quantization_config.load_in_4bit", false)) return StoredAs{"int4", 0.5};
  if (config.flag("quantization_config.load_in_8bit", false)) return StoredAs{"int8", 1};
  if (auto bits = config.optional("quantization_config.bits", 16)) return StoredAs{fmt::format("int{}", *bits), *bits / 8.0};
  const auto method = config.text("quantization_config.quant_method");
  if (method && method->find("fp8") != std::string_view::npos) return StoredAs{"fp8", 1};
  return std::nullopt;
}

// transformers writes torch_dtype (newer versions: dtype); a quantized
// model's says what it computes in, not how it is stored.
StoredAs stored_as(ConfigReader& config) {
  if (auto quantized = quantized_storage(config)) return *quantized;
  if (config.text("quantization_config.quant_method")) return {};  // quantized some way not known here: unknown
  for (std::string_view key : {"torch_dtype", "dtype", "text_config.torch_dtype"}) {
    if (auto dtype = config.text(key)) return torch_dtype_storage(*dtype).value_or(StoredAs{});
  }
  return {};
}

// ---- the weights' settings ---------------------------------------------------------

// A safetensors dtype as ModelShape names dtypes.
std::string dtype_name(std::string_view safetensors_dtype) {
  if (safetensors_dtype == "BF16") return "bf16";
  if (safetensors_dtype == "F16") return "fp16";
  if (safetensors_dtype == "F32") return "fp32";
  if (safetensors_dtype == "F64") return "fp64";
  if (safetensors_dtype == "I8") return "int8";
  if (safetensors_dtype == "U8") return "uint8";
  if (safetensors_dtype.starts_with("F8_")) return "fp8";
  std::string lower(safetensors_dtype);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return shown(lower);
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  for (std::size_t start = 0;;) {
    const auto end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos) return parts;
    start = end + 1;
  }
}

// "4096,11008,32" or several joined by ';' (collect/weights/model_weights.h).
Fact<std::vector<LinearWeights>> linear_groups(const std::string& name, std::string_view value) {
  std::vector<LinearWeights> groups;
  for (const auto group : split(value, ';')) {
    const auto fields = split(group, ',');
    std::vector<std::uint64_t> numbers;
    for (const auto field : fields) {
      const auto number = whole_number(field);
      if (number && *number > 0) numbers.push_back(*number);
    }
    if (fields.size() != 3 || numbers.size() != 3) {
      return unparseable(fmt::format("the weights' linear.{} is \"{}\", not in,out,count", shown(name), shown(value)));
    }
    groups.push_back(LinearWeights{name, numbers[0], numbers[1], numbers[2]});
  }
  return groups;
}

Fact<std::vector<LinearWeights>> weights_linears(const Settings& weights) {
  std::vector<LinearWeights> linears;
  for (auto entry = weights.lower_bound("linear."); entry != weights.end() && entry->first.starts_with("linear."); ++entry) {
    auto groups = linear_groups(entry->first.substr(7), entry->second);
    if (!groups) return groups.missing();
    linears.insert(linears.end(), groups->begin(), groups->end());
  }
  return linears;
}

// The weights' linears where they have them (exact); the config's for the
// others (a bitsandbytes 4-bit weight hides its shape). The config's order
// first.
std::vector<LinearWeights> merged_linears(std::vector<LinearWeights> from_weights, const std::vector<LinearWeights>& from_config) {
  std::set<std::string> weights_names;
  for (const auto& linear : from_weights) weights_names.insert(linear.name);
  std::vector<LinearWeights> merged;
  std::set<std::string> placed;
  for (const auto& linear : from_config) {
    if (!weights_names.contains(linear.name)) {
      merged.push_back(linear);
    } else if (placed.insert(linear.name).second) {
      for (const auto& exact : from_weights) {
        if (exact.name == linear.name) merged.push_back(exact);
      }
    }
  }
  for (const auto& linear : from_weights) {
    if (!placed.contains(linear.name)) merged.push_back(linear);
  }
  return merged;
}

std::optional<std::uint64_t> weights_number(const Settings& weights, const std::string& key) {
  const auto found = weights.find(key);
  return found == weights.end() ? std::nullopt : whole_number(found->second);
}

std::string weights_text(const Settings& weights, const std::string& key) {
  const auto found = weights.find(key);
  return found == weights.end() ? std::string{} : found->second;
}

// ---- counts as people write them ------------------------------------------------

constexpr double kMaxParameters = 1e14;

std::optional<double> count_multiplier(std::string suffix) {
  std::transform(suffix.begin(), suffix.end(), suffix.begin(), [](unsigned char c) { return std::tolower(c); });
  if (suffix.empty()) return 1;
  if (suffix == "k" || suffix == "thousand") return 1e3;
  if (suffix == "m" || suffix == "million") return 1e6;
  if (suffix == "b" || suffix == "bn" || suffix == "billion") return 1e9;
  if (suffix == "t" || suffix == "trillion") return 1e12;
  return std::nullopt;
}

std::string_view trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

Missing not_a_count(std::string_view text, std::string_view why) {
  return unparseable(fmt::format("\"{}\" {} (write 7B, 1.5B, 350M, 70e9 or 7000000000)", shown(text), why));
}

}  // namespace

namespace {

// Whether any of the dropout probabilities transformers' configs use is
// above 0 (a value that is no number counts as none: dropout only changes
// the activations' masks, never the parameter count).
bool trains_with_dropout(const Settings& config) {
  for (const char* key : {"attention_dropout", "hidden_dropout", "dropout", "attn_pdrop", "resid_pdrop", "embd_pdrop",
                          "hidden_dropout_prob", "attention_probs_dropout_prob", "dropout_rate"}) {
    const auto found = config.find(key);
    if (found == config.end()) continue;
    char* end = nullptr;
    const double probability = std::strtod(found->second.c_str(), &end);
    if (end != found->second.c_str() && *end == '\0' && probability > 0) return true;
  }
  return false;
}

}  // namespace

Fact<ModelShape> shape_from_config(const Settings& config) {
  auto architecture = architecture_of(config);
  if (!architecture) return architecture.missing();
  ConfigReader reader(config, (*architecture)->model_type);
  Fact<ModelShape> shape = Missing{};
  switch ((*architecture)->family) {
    case Family::llama_like: shape = llama_like_shape(reader, **architecture); break;
    case Family::gpt_neox: shape = gpt_neox_shape(reader); break;
    case Family::chatglm: shape = chatglm_shape(reader); break;
    case Family::t5: shape = t5_shape(reader); break;
    case Family::bert: shape = bert_shape(reader); break;
  }
  if (!shape) return shape;
  const StoredAs stored = stored_as(reader);
  if (reader.problem()) return *reader.problem();
  shape->dropout = trains_with_dropout(config);
  shape->stored_dtype = stored.dtype;
  shape->stored_bytes_per_parameter = stored.bytes_per_parameter;
  return shape;
}

Fact<ModelShape> shape_from_weights(const Settings& weights, const ModelShape* from_config) {
  const std::string quantization = weights_text(weights, "quantization");
  if (quantization == "gptq-awq") {
    return unsupported("the weights are packed by GPTQ or AWQ (int32 qweight): their count needs the bit width, "
                       "which the safetensors headers do not hold; config.json gives the shape");
  }
  const auto parameters = weights_number(weights, "parameters");
  if (!parameters || *parameters == 0) {
    return Missing{MissingReason::not_present, "the model's weights hold no parameters"};
  }
  auto linears = weights_linears(weights);
  if (!linears) return linears.missing();
  ModelShape shape = from_config ? *from_config : ModelShape{};
  shape.parameters = *parameters;
  shape.largest_layer_parameters = weights_number(weights, "largest_layer_parameters").value_or(0);
  const auto bytes = weights_number(weights, "bytes");
  // The average of what is stored, scales and unquantized layers included.
  shape.stored_bytes_per_parameter = bytes ? static_cast<double>(*bytes) / static_cast<double>(*parameters) : 0;
  if (quantization == "bnb-4bit") {
    shape.stored_dtype = "int4";
  } else if (quantization == "bnb-8bit") {
    shape.stored_dtype = "int8";
  } else {
    shape.stored_dtype = dtype_name(weights_text(weights, "dtype"));
  }
  shape.linears = merged_linears(std::move(*linears), from_config ? from_config->linears : std::vector<LinearWeights>{});
  shape.source = "safetensors";
  return shape;
}

Fact<std::uint64_t> parse_parameter_count(std::string_view text) {
  const auto count = trimmed(text);
  if (count.empty()) return not_a_count(text, "is not a parameter count");
  if (count.front() == '-') return not_a_count(text, "is negative: a parameter count is positive");
  const auto letters = count.find_last_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ");
  const std::string_view number = trimmed(count.substr(0, letters == std::string_view::npos ? 0 : letters + 1));
  const auto multiplier = count_multiplier(std::string(count.substr(number.empty() ? 0 : letters + 1)));
  double value = 0;
  const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (!multiplier || number.empty() || error != std::errc() || end != number.data() + number.size()) {
    return not_a_count(text, "is not a parameter count");
  }
  value *= *multiplier;
  if (!(value <= kMaxParameters)) return not_a_count(text, "is over 100 trillion (1e14): not a model's parameter count");
  if (*multiplier == 1 && value != std::floor(value)) return not_a_count(text, "is not a whole number of parameters");
  const double rounded = std::round(value);
  if (rounded < 1) return not_a_count(text, "is zero: a model has parameters");
  return static_cast<std::uint64_t>(rounded);
}

ModelShape shape_from_count(std::uint64_t parameters) {
  ModelShape shape;
  shape.parameters = parameters;
  shape.source = "parameters";
  return shape;
}

namespace {

// Published config.json values of decoders people fine-tune, by size.
struct TypicalDecoder {
  const char* name;
  double parameters;
  const char* model_type;
  std::uint64_t hidden, layers, heads, kv_heads, intermediate, vocab;
  bool tied;
};

constexpr TypicalDecoder kTypicalDecoders[] = {
    {"Qwen2.5-0.5B", 0.49e9, "qwen2", 896, 24, 14, 2, 4864, 151936, true},
    {"Qwen2.5-1.5B", 1.54e9, "qwen2", 1536, 28, 12, 2, 8960, 151936, true},
    {"Qwen2.5-3B", 3.09e9, "qwen2", 2048, 36, 16, 2, 11008, 151936, true},
    {"Llama-2-7B", 6.74e9, "llama", 4096, 32, 32, 32, 11008, 32000, false},
    {"Llama-3-8B", 8.03e9, "llama", 4096, 32, 32, 8, 14336, 128256, false},
    {"Llama-2-13B", 13.0e9, "llama", 5120, 40, 40, 40, 13824, 32000, false},
    {"Qwen2.5-14B", 14.8e9, "qwen2", 5120, 48, 40, 8, 13824, 152064, false},
    {"Qwen2.5-32B", 32.8e9, "qwen2", 5120, 64, 40, 8, 27648, 152064, false},
    {"Llama-2-70B", 69.0e9, "llama", 8192, 80, 64, 8, 28672, 32000, false},
    {"Qwen1.5-110B", 111e9, "qwen2", 8192, 80, 64, 8, 49152, 152064, false},
};

}  // namespace

ModelShape assumed_decoder_shape(std::uint64_t parameters) {
  const TypicalDecoder* nearest = &kTypicalDecoders[0];
  const double wanted = std::log(static_cast<double>(parameters));
  for (const auto& decoder : kTypicalDecoders) {
    if (std::abs(std::log(decoder.parameters) - wanted) < std::abs(std::log(nearest->parameters) - wanted)) nearest = &decoder;
  }
  Settings config{{"model_type", nearest->model_type},
                  {"hidden_size", std::to_string(nearest->hidden)},
                  {"num_hidden_layers", std::to_string(nearest->layers)},
                  {"num_attention_heads", std::to_string(nearest->heads)},
                  {"num_key_value_heads", std::to_string(nearest->kv_heads)},
                  {"intermediate_size", std::to_string(nearest->intermediate)},
                  {"vocab_size", std::to_string(nearest->vocab)},
                  {"tie_word_embeddings", nearest->tied ? "true" : "false"}};
  auto shape = shape_from_config(config);
  if (!shape) return shape_from_count(parameters);  // the table is ftdiag's own: never expected
  ModelShape out = *shape;
  out.parameters = parameters;
  out.source = "parameters";
  out.assumed_from = nearest->name;
  return out;
}

}  // namespace ftdiag::estimate
