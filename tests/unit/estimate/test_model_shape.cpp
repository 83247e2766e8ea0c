// Parameter counts from config.json, checked against the counts the models'
// publishers state (model cards, papers, sum(p.numel()) as PEFT and
// LLaMA-Factory print it). The configs are the published config.json files,
// keys that do not bear on the shape trimmed.
#include <doctest/doctest.h>

#include <string>
#include <string_view>

#include "estimate/model_shape.h"
#include "parse/configs/json_settings.h"

using namespace ftdiag;
using namespace ftdiag::estimate;

namespace {

std::map<std::string, std::string> settings_of(std::string_view config) {
  auto settings = parse::flatten_json_settings(config);
  REQUIRE_MESSAGE(settings, (settings ? "" : settings.missing().detail));
  return *settings;
}

ModelShape shape_of(std::string_view config) {
  auto shape = shape_from_config(settings_of(config));
  REQUIRE_MESSAGE(shape, (shape ? "" : shape.missing().detail));
  return *shape;
}

Missing refused(std::string_view config) {
  auto shape = shape_from_config(settings_of(config));
  REQUIRE_FALSE(shape);
  for (char c : shape.missing().detail) CHECK((c >= 0x20 && c < 0x7f));
  return shape.missing();
}

bool contains(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

constexpr std::string_view kLlama2_7B = R"({
  "architectures": ["LlamaForCausalLM"], "bos_token_id": 1, "eos_token_id": 2, "hidden_act": "silu",
  "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 11008, "max_position_embeddings": 4096,
  "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 32,
  "pretraining_tp": 1, "rms_norm_eps": 1e-05, "rope_scaling": null, "tie_word_embeddings": false,
  "torch_dtype": "float16", "transformers_version": "4.31.0.dev0", "use_cache": true, "vocab_size": 32000})";

constexpr std::string_view kMixtral_8x7B = R"({
  "architectures": ["MixtralForCausalLM"], "attention_dropout": 0.0, "bos_token_id": 1, "eos_token_id": 2,
  "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
  "max_position_embeddings": 32768, "model_type": "mixtral", "num_attention_heads": 32, "num_experts_per_tok": 2,
  "num_hidden_layers": 32, "num_key_value_heads": 8, "num_local_experts": 8, "output_router_logits": false,
  "rms_norm_eps": 1e-05, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.02, "sliding_window": null,
  "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 32000})";

constexpr std::string_view kGemma_2B = R"({
  "architectures": ["GemmaForCausalLM"], "attention_bias": false, "attention_dropout": 0.0, "bos_token_id": 2,
  "eos_token_id": 1, "head_dim": 256, "hidden_act": "gelu", "hidden_size": 2048, "initializer_range": 0.02,
  "intermediate_size": 16384, "max_position_embeddings": 8192, "model_type": "gemma", "num_attention_heads": 8,
  "num_hidden_layers": 18, "num_key_value_heads": 1, "pad_token_id": 0, "rms_norm_eps": 1e-06, "rope_scaling": null,
  "rope_theta": 10000.0, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 256000})";

constexpr std::string_view kPythia_160M = R"({
  "architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0, "hidden_act": "gelu",
  "hidden_size": 768, "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-05,
  "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 12, "num_hidden_layers": 12,
  "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false, "torch_dtype": "float16",
  "use_cache": true, "use_parallel_residual": true, "vocab_size": 50304})";

constexpr std::string_view kChatGLM3_6B = R"({
  "_name_or_path": "THUDM/chatglm3-6b", "model_type": "chatglm", "architectures": ["ChatGLMModel"],
  "add_bias_linear": false, "add_qkv_bias": true, "apply_query_key_layer_scaling": true,
  "apply_residual_connection_post_layernorm": false, "attention_dropout": 0.0, "attention_softmax_in_fp32": true,
  "bias_dropout_fusion": true, "ffn_hidden_size": 13696, "fp32_residual_connection": false, "hidden_dropout": 0.0,
  "hidden_size": 4096, "kv_channels": 128, "layernorm_epsilon": 1e-05, "multi_query_attention": true,
  "multi_query_group_num": 2, "num_attention_heads": 32, "num_layers": 28, "original_rope": true,
  "padded_vocab_size": 65024, "post_layer_norm": true, "rmsnorm": true, "seq_length": 8192, "use_cache": true,
  "torch_dtype": "float16", "tie_word_embeddings": false, "eos_token_id": 2, "pad_token_id": 0})";

LinearWeights linear(std::string name, std::uint64_t in, std::uint64_t out, std::uint64_t count) {
  return LinearWeights{std::move(name), in, out, count};
}

}  // namespace

TEST_CASE("shape_from_config: Llama 2 7B, 13B and 70B (GQA)") {
  const auto llama7 = shape_of(kLlama2_7B);
  CHECK(llama7.parameters == 6'738'415'616);
  CHECK(llama7.largest_layer_parameters == 32000 * 4096);  // embed_tokens, and the untied lm_head
  CHECK(llama7.architecture == "llama");
  CHECK(llama7.source == "config");
  CHECK(llama7.hidden == 4096);
  CHECK(llama7.layers == 32);
  CHECK(llama7.heads == 32);
  CHECK(llama7.kv_heads == 32);
  CHECK(llama7.head_dim == 128);
  CHECK(llama7.intermediate == 11008);
  CHECK(llama7.vocab == 32000);
  CHECK(llama7.gated_mlp);
  CHECK_FALSE(llama7.tied_embeddings);
  CHECK(llama7.experts == 0);
  CHECK(llama7.stored_dtype == "fp16");
  CHECK(llama7.stored_bytes_per_parameter == 2.0);
  CHECK(llama7.has_dimensions());
  CHECK(llama7.linears == std::vector<LinearWeights>{linear("q_proj", 4096, 4096, 32), linear("k_proj", 4096, 4096, 32),
                                                     linear("v_proj", 4096, 4096, 32), linear("o_proj", 4096, 4096, 32),
                                                     linear("gate_proj", 4096, 11008, 32), linear("up_proj", 4096, 11008, 32),
                                                     linear("down_proj", 11008, 4096, 32)});

  const auto llama13 = shape_of(R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": 5120,
    "intermediate_size": 13824, "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 40,
    "num_hidden_layers": 40, "num_key_value_heads": 40, "rms_norm_eps": 1e-05, "tie_word_embeddings": false,
    "torch_dtype": "float16", "vocab_size": 32000})");
  CHECK(llama13.parameters == 13'015'864'320);

  const auto llama70 = shape_of(R"({"architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": 8192,
    "intermediate_size": 28672, "max_position_embeddings": 4096, "model_type": "llama", "num_attention_heads": 64,
    "num_hidden_layers": 80, "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "tie_word_embeddings": false,
    "torch_dtype": "float16", "vocab_size": 32000})");
  CHECK(llama70.parameters == 68'976'648'192);
  CHECK(llama70.kv_heads == 8);
  CHECK(llama70.linears[1] == linear("k_proj", 8192, 1024, 80));
}

TEST_CASE("shape_from_config: Llama 3 8B, and Llama 3.2 1B with tied embeddings and head_dim") {
  const auto llama3 = shape_of(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
    "hidden_size": 4096, "intermediate_size": 14336, "max_position_embeddings": 8192, "model_type": "llama",
    "num_attention_heads": 32, "num_hidden_layers": 32, "num_key_value_heads": 8, "rms_norm_eps": 1e-05,
    "rope_theta": 500000.0, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 128256})");
  CHECK(llama3.parameters == 8'030'261'248);
  CHECK(llama3.stored_dtype == "bf16");

  const auto llama32 = shape_of(R"({"architectures": ["LlamaForCausalLM"], "attention_bias": false,
    "head_dim": 64, "hidden_act": "silu", "hidden_size": 2048, "intermediate_size": 8192, "mlp_bias": false,
    "model_type": "llama", "num_attention_heads": 32, "num_hidden_layers": 16, "num_key_value_heads": 8,
    "rope_scaling": {"factor": 32.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0,
                     "original_max_position_embeddings": 8192, "rope_type": "llama3"},
    "tie_word_embeddings": true, "torch_dtype": "bfloat16", "vocab_size": 128256})");
  CHECK(llama32.parameters == 1'235'814'400);
  CHECK(llama32.tied_embeddings);
  CHECK(llama32.largest_layer_parameters == 128256 * 2048);
}

TEST_CASE("shape_from_config: Mistral 7B and Mixtral 8x7B") {
  const auto mistral = shape_of(R"({"architectures": ["MistralForCausalLM"], "bos_token_id": 1, "eos_token_id": 2,
    "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02, "intermediate_size": 14336,
    "max_position_embeddings": 32768, "model_type": "mistral", "num_attention_heads": 32, "num_hidden_layers": 32,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-05, "rope_theta": 10000.0, "sliding_window": 4096,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "vocab_size": 32000})");
  CHECK(mistral.parameters == 7'241'732'096);

  // Mixtral 8x22B: "141B total parameters, 39B active".
  const auto mixtral_8x22b = shape_of(R"({"architectures": ["MixtralForCausalLM"], "hidden_size": 6144,
    "intermediate_size": 16384, "model_type": "mixtral", "num_attention_heads": 48, "num_experts_per_tok": 2,
    "num_hidden_layers": 56, "num_key_value_heads": 8, "num_local_experts": 8, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "vocab_size": 32000})");
  CHECK(mixtral_8x22b.parameters == 140'620'634'112);

  const auto mixtral = shape_of(kMixtral_8x7B);
  CHECK(mixtral.parameters == 46'702'792'704);
  CHECK(mixtral.experts == 8);
  CHECK(mixtral.experts_per_token == 2);
  CHECK(mixtral.intermediate == 14336);
  CHECK(mixtral.largest_layer_parameters == 32000 * 4096);  // an expert's w1 is 58.7M, the embedding 131M
  CHECK(mixtral.linears == std::vector<LinearWeights>{linear("q_proj", 4096, 4096, 32), linear("k_proj", 4096, 1024, 32),
                                                      linear("v_proj", 4096, 1024, 32), linear("o_proj", 4096, 4096, 32),
                                                      linear("gate", 4096, 8, 32), linear("w1", 4096, 14336, 256),
                                                      linear("w2", 14336, 4096, 256), linear("w3", 4096, 14336, 256)});
}

TEST_CASE("shape_from_config: Qwen1.5-MoE-A2.7B (shared expert) and Qwen3-30B-A3B, as their model cards count them") {
  const auto qwen2_moe = shape_of(R"({"architectures": ["Qwen2MoeForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 2048,
    "initializer_range": 0.02, "intermediate_size": 5632, "max_position_embeddings": 8192, "max_window_layers": 21,
    "model_type": "qwen2_moe", "moe_intermediate_size": 1408, "norm_topk_prob": false, "num_attention_heads": 16,
    "num_experts": 60, "num_experts_per_tok": 4, "num_hidden_layers": 24, "num_key_value_heads": 16,
    "output_router_logits": false, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
    "shared_expert_intermediate_size": 5632, "sliding_window": 32768, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "use_cache": true, "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(qwen2_moe.parameters == 14'315'784'192);  // "14.3B in total and 2.7B activated"
  CHECK(qwen2_moe.experts == 60);
  CHECK(qwen2_moe.experts_per_token == 4);
  CHECK(qwen2_moe.intermediate == 1408);
  CHECK(qwen2_moe.shared_expert_intermediate == 5632);
  CHECK(qwen2_moe.linears[4] == linear("gate", 2048, 60, 24));
  CHECK(qwen2_moe.linears[5] == linear("gate_proj", 2048, 1408, 24 * 60));
  CHECK(qwen2_moe.linears[8] == linear("gate_proj", 2048, 5632, 24));  // the shared expert

  const auto qwen3_moe = shape_of(R"({"architectures": ["Qwen3MoeForCausalLM"], "attention_bias": false,
    "attention_dropout": 0.0, "bos_token_id": 151643, "decoder_sparse_step": 1, "eos_token_id": 151645, "head_dim": 128,
    "hidden_act": "silu", "hidden_size": 2048, "initializer_range": 0.02, "intermediate_size": 6144,
    "max_position_embeddings": 40960, "max_window_layers": 48, "mlp_only_layers": [], "model_type": "qwen3_moe",
    "moe_intermediate_size": 768, "norm_topk_prob": true, "num_attention_heads": 32, "num_experts": 128,
    "num_experts_per_tok": 8, "num_hidden_layers": 48, "num_key_value_heads": 4, "output_router_logits": false,
    "rms_norm_eps": 1e-06, "rope_scaling": null, "rope_theta": 1000000.0, "router_aux_loss_coef": 0.001,
    "sliding_window": null, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true,
    "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(qwen3_moe.parameters == 30'532'122'624);  // "30.5B in total and 3.3B activated"
  CHECK(qwen3_moe.shared_expert_intermediate == 0);
  CHECK(qwen3_moe.intermediate == 768);

  // Dense layers: every second layer sparse, and layer 0 listed as dense only.
  const auto mixed = shape_of(R"({"model_type": "qwen3_moe", "hidden_size": 64, "num_hidden_layers": 4,
    "num_attention_heads": 4, "num_key_value_heads": 4, "head_dim": 16, "intermediate_size": 256, "vocab_size": 100,
    "moe_intermediate_size": 32, "num_experts": 4, "num_experts_per_tok": 2, "decoder_sparse_step": 2,
    "mlp_only_layers": [1], "tie_word_embeddings": true})");
  // Layer 1 is dense by the list, layer 3 sparse; 0 and 2 dense by the step.
  CHECK(mixed.linears[4] == linear("gate", 64, 4, 1));
  CHECK(mixed.linears[5] == linear("gate_proj", 64, 32, 4));
  CHECK(mixed.linears[8] == linear("gate_proj", 64, 256, 3));
}

TEST_CASE("shape_from_config: T5 (t5-3b and t5-large as DeepSpeed's docs count them; Flan-T5's gated feed-forward)") {
  const auto t5_3b = shape_of(R"({"architectures": ["T5WithLMHeadModel"], "d_ff": 16384, "d_kv": 128, "d_model": 1024,
    "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1, "initializer_factor": 1.0,
    "is_encoder_decoder": true, "layer_norm_epsilon": 1e-06, "model_type": "t5", "n_positions": 512, "num_heads": 32,
    "num_layers": 24, "output_past": true, "pad_token_id": 0, "relative_attention_num_buckets": 32, "vocab_size": 32128})");
  // estimate_zero2_model_states_mem_needs_all_live(T5ForConditionalGeneration.from_pretrained("t5-3b")):
  // "2851M total params, 32M largest layer params".
  CHECK(t5_3b.parameters == 2'851'598'336);
  CHECK(t5_3b.largest_layer_parameters == 32128 * 1024);
  CHECK(t5_3b.encoder_decoder);
  CHECK(t5_3b.layers == 48);
  CHECK(t5_3b.dropout);
  const auto t5_large = shape_of(R"({"model_type": "t5", "d_ff": 4096, "d_kv": 64, "d_model": 1024, "num_heads": 16,
    "num_layers": 24, "vocab_size": 32128, "relative_attention_num_buckets": 32})");
  CHECK(t5_large.parameters == 737'668'096);  // "737M total params"
  const auto flan_t5_base = shape_of(R"({"architectures": ["T5ForConditionalGeneration"], "d_ff": 2048, "d_kv": 64,
    "d_model": 768, "feed_forward_proj": "gated-gelu", "model_type": "t5", "num_decoder_layers": 12, "num_heads": 12,
    "num_layers": 12, "relative_attention_num_buckets": 32, "tie_word_embeddings": false, "vocab_size": 32128})");
  CHECK(flan_t5_base.parameters == 247'577'856);  // google/flan-t5-base: 248M
  CHECK(flan_t5_base.gated_mlp);
}

TEST_CASE("shape_from_config: BERT base and large, as the BERT paper and sum(p.numel()) of BertModel count them") {
  const auto base = shape_of(R"({"architectures": ["BertForMaskedLM"], "attention_probs_dropout_prob": 0.1,
    "gradient_checkpointing": false, "hidden_act": "gelu", "hidden_dropout_prob": 0.1, "hidden_size": 768,
    "initializer_range": 0.02, "intermediate_size": 3072, "layer_norm_eps": 1e-12, "max_position_embeddings": 512,
    "model_type": "bert", "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 0,
    "position_embedding_type": "absolute", "transformers_version": "4.6.0.dev0", "type_vocab_size": 2,
    "use_cache": true, "vocab_size": 30522})");
  CHECK(base.parameters == 109'482'240);  // "BERT-base ... 110M"
  CHECK(base.dropout);
  CHECK_FALSE(base.encoder_decoder);
  const auto large = shape_of(R"({"model_type": "bert", "hidden_size": 1024, "num_attention_heads": 16,
    "num_hidden_layers": 24, "intermediate_size": 4096, "vocab_size": 30522, "max_position_embeddings": 512,
    "type_vocab_size": 2})");
  CHECK(large.parameters == 335'141'888);  // "BERT-large ... 340M"
}

TEST_CASE("shape_from_config: Qwen2 (q/k/v biases, the small ones tie) and Qwen3 (q/k norms)") {
  const auto qwen7 = shape_of(R"({"architectures": ["Qwen2ForCausalLM"], "attention_dropout": 0.0,
    "bos_token_id": 151643, "eos_token_id": 151643, "hidden_act": "silu", "hidden_size": 3584,
    "initializer_range": 0.02, "intermediate_size": 18944, "max_position_embeddings": 131072,
    "max_window_layers": 28, "model_type": "qwen2", "num_attention_heads": 28, "num_hidden_layers": 28,
    "num_key_value_heads": 4, "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true, "use_sliding_window": false,
    "vocab_size": 152064})");
  CHECK(qwen7.parameters == 7'615'616'512);
  CHECK(qwen7.linears[1] == linear("k_proj", 3584, 512, 28));

  const auto qwen_half = shape_of(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_act": "silu",
    "hidden_size": 896, "intermediate_size": 4864, "max_position_embeddings": 131072, "max_window_layers": 24,
    "model_type": "qwen2", "num_attention_heads": 14, "num_hidden_layers": 24, "num_key_value_heads": 2,
    "rms_norm_eps": 1e-06, "rope_theta": 1000000.0, "sliding_window": 131072, "tie_word_embeddings": true,
    "torch_dtype": "bfloat16", "use_sliding_window": false, "vocab_size": 151936})");
  CHECK(qwen_half.parameters == 494'032'768);
  CHECK(qwen_half.tied_embeddings);

  const auto qwen15 = shape_of(R"({"architectures": ["Qwen2ForCausalLM"], "hidden_size": 1536,
    "intermediate_size": 8960, "model_type": "qwen2", "num_attention_heads": 12, "num_hidden_layers": 28,
    "num_key_value_heads": 2, "tie_word_embeddings": true, "torch_dtype": "bfloat16", "vocab_size": 151936})");
  CHECK(qwen15.parameters == 1'543'714'304);

  const auto qwen3 = shape_of(R"({"architectures": ["Qwen3ForCausalLM"], "attention_bias": false,
    "head_dim": 128, "hidden_act": "silu", "hidden_size": 4096, "intermediate_size": 12288,
    "max_position_embeddings": 40960, "model_type": "qwen3", "num_attention_heads": 32, "num_hidden_layers": 36,
    "num_key_value_heads": 8, "rms_norm_eps": 1e-06, "rope_theta": 1000000, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "vocab_size": 151936})");
  CHECK(qwen3.parameters == 8'190'735'360);
}

TEST_CASE("shape_from_config: Gemma (head_dim 256, tied by default) and Gemma 2 (four norms a layer)") {
  const auto gemma2b = shape_of(kGemma_2B);
  CHECK(gemma2b.parameters == 2'506'172'416);
  CHECK(gemma2b.tied_embeddings);  // the config does not say; GemmaConfig ties
  CHECK(gemma2b.head_dim == 256);
  CHECK(gemma2b.kv_heads == 1);
  CHECK(gemma2b.linears[0] == linear("q_proj", 2048, 2048, 18));
  CHECK(gemma2b.linears[1] == linear("k_proj", 2048, 256, 18));

  const auto gemma7b = shape_of(R"({"architectures": ["GemmaForCausalLM"], "attention_bias": false,
    "head_dim": 256, "hidden_act": "gelu", "hidden_size": 3072, "intermediate_size": 24576,
    "max_position_embeddings": 8192, "model_type": "gemma", "num_attention_heads": 16, "num_hidden_layers": 28,
    "num_key_value_heads": 16, "rms_norm_eps": 1e-06, "torch_dtype": "bfloat16", "vocab_size": 256000})");
  CHECK(gemma7b.parameters == 8'537'680'896);
  CHECK(gemma7b.linears[0] == linear("q_proj", 3072, 4096, 28));  // 16 heads x 256 > 3072
  CHECK(gemma7b.linears[3] == linear("o_proj", 4096, 3072, 28));

  const auto gemma2_9b = shape_of(R"({"architectures": ["Gemma2ForCausalLM"], "attention_bias": false,
    "attn_logit_softcapping": 50.0, "final_logit_softcapping": 30.0, "head_dim": 256,
    "hidden_activation": "gelu_pytorch_tanh", "hidden_size": 3584, "intermediate_size": 14336,
    "model_type": "gemma2", "num_attention_heads": 16, "num_hidden_layers": 42, "num_key_value_heads": 8,
    "query_pre_attn_scalar": 256, "rms_norm_eps": 1e-06, "sliding_window": 4096, "torch_dtype": "float32",
    "vocab_size": 256000})");
  CHECK(gemma2_9b.parameters == 9'241'705'984);
  CHECK(gemma2_9b.stored_dtype == "fp32");
  CHECK(gemma2_9b.stored_bytes_per_parameter == 4.0);
}

TEST_CASE("shape_from_config: GPT-NeoX 20B and Pythia 160M (biases everywhere, untied embed_out)") {
  const auto neox = shape_of(R"({"architectures": ["GPTNeoXForCausalLM"], "bos_token_id": 0, "eos_token_id": 0,
    "hidden_act": "gelu_fast", "hidden_size": 6144, "initializer_range": 0.02, "intermediate_size": 24576,
    "layer_norm_eps": 1e-05, "max_position_embeddings": 2048, "model_type": "gpt_neox", "num_attention_heads": 64,
    "num_hidden_layers": 44, "rotary_emb_base": 10000, "rotary_pct": 0.25, "tie_word_embeddings": false,
    "torch_dtype": "float16", "use_cache": true, "use_parallel_residual": true, "vocab_size": 50432})");
  CHECK(neox.parameters == 20'554'567'680);
  CHECK(neox.largest_layer_parameters == 50432 * 6144);
  CHECK_FALSE(neox.gated_mlp);

  const auto pythia = shape_of(kPythia_160M);
  CHECK(pythia.parameters == 162'322'944);
  CHECK(pythia.linears == std::vector<LinearWeights>{linear("query_key_value", 768, 2304, 12), linear("dense", 768, 768, 12),
                                                     linear("dense_h_to_4h", 768, 3072, 12),
                                                     linear("dense_4h_to_h", 3072, 768, 12)});
}

TEST_CASE("shape_from_config: Baichuan (W_pack), Baichuan 2 and Baichuan-13B without rotary") {
  const auto baichuan2_7b = shape_of(R"({"architectures": ["BaichuanForCausalLM"], "bos_token_id": 1,
    "eos_token_id": 2, "hidden_act": "silu", "hidden_size": 4096, "initializer_range": 0.02,
    "intermediate_size": 11008, "max_position_embeddings": 4096, "model_max_length": 4096, "model_type": "baichuan",
    "num_attention_heads": 32, "num_hidden_layers": 32, "pad_token_id": 0, "rms_norm_eps": 1e-06,
    "_from_model_config": true, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "use_cache": true,
    "vocab_size": 125696, "z_loss_weight": 0})");
  CHECK(baichuan2_7b.parameters == 7'505'973'248);
  CHECK(baichuan2_7b.linears[0] == linear("W_pack", 4096, 12288, 32));

  const auto baichuan_13b = shape_of(R"({"architectures": ["BaichuanForCausalLM"], "hidden_act": "silu",
    "hidden_size": 5120, "intermediate_size": 13696, "model_max_length": 4096, "model_type": "baichuan",
    "num_attention_heads": 40, "num_hidden_layers": 40, "rms_norm_eps": 1e-06, "tie_word_embeddings": false,
    "torch_dtype": "bfloat16", "vocab_size": 64000})");
  CHECK(baichuan_13b.parameters == 13'264'901'120);

  const auto baichuan2_13b = shape_of(R"({"architectures": ["BaichuanForCausalLM"], "hidden_size": 5120,
    "intermediate_size": 13696, "model_max_length": 4096, "model_type": "baichuan", "num_attention_heads": 40,
    "num_hidden_layers": 40, "tie_word_embeddings": false, "torch_dtype": "bfloat16", "vocab_size": 125696})");
  CHECK(baichuan2_13b.parameters == 13'896'668'160);
}

TEST_CASE("shape_from_config: ChatGLM3 6B and GLM-4 9B (multi-query groups, packed SwiGLU)") {
  const auto chatglm3 = shape_of(kChatGLM3_6B);
  CHECK(chatglm3.parameters == 6'243'584'000);
  CHECK(chatglm3.architecture == "chatglm");
  CHECK(chatglm3.kv_heads == 2);
  CHECK(chatglm3.head_dim == 128);
  CHECK(chatglm3.vocab == 65024);
  CHECK(chatglm3.intermediate == 13696);
  CHECK(chatglm3.layers == 28);
  CHECK(chatglm3.linears == std::vector<LinearWeights>{linear("query_key_value", 4096, 4608, 28), linear("dense", 4096, 4096, 28),
                                                       linear("dense_h_to_4h", 4096, 27392, 28),
                                                       linear("dense_4h_to_h", 13696, 4096, 28)});

  const auto glm4 = shape_of(R"({"model_type": "chatglm", "architectures": ["ChatGLMModel"], "add_bias_linear": false,
    "add_qkv_bias": true, "ffn_hidden_size": 13696, "hidden_size": 4096, "kv_channels": 128,
    "multi_query_attention": true, "multi_query_group_num": 2, "num_attention_heads": 32, "num_layers": 40,
    "padded_vocab_size": 151552, "post_layer_norm": true, "rmsnorm": true, "seq_length": 131072,
    "torch_dtype": "bfloat16"})");
  CHECK(glm4.parameters == 9'399'951'360);
}

TEST_CASE("shape_from_config: architecture from architectures[0] or telltale keys") {
  std::string no_type(kLlama2_7B);
  no_type.replace(no_type.find(R"("model_type": "llama",)"), 22, "");
  CHECK(shape_of(no_type).parameters == 6'738'415'616);
  CHECK(shape_of(no_type).architecture == "llama");
  std::string chatglm_keys(kChatGLM3_6B);
  chatglm_keys.replace(chatglm_keys.find(R"("model_type": "chatglm",)"), 24, "");
  chatglm_keys.replace(chatglm_keys.find(R"("architectures": ["ChatGLMModel"],)"), 34, "");
  CHECK(shape_of(chatglm_keys).parameters == 6'243'584'000);
}

TEST_CASE("shape_from_config: how quantized weights are stored") {
  std::string bnb4(kLlama2_7B);
  bnb4.insert(1, R"("quantization_config": {"load_in_4bit": true, "bnb_4bit_quant_type": "nf4",
    "bnb_4bit_compute_dtype": "bfloat16", "quant_method": "bitsandbytes"}, )");
  const auto nf4 = shape_of(bnb4);
  CHECK(nf4.stored_dtype == "int4");
  CHECK(nf4.stored_bytes_per_parameter == 0.5);
  CHECK(nf4.parameters == 6'738'415'616);  // the model's count, whatever its storage

  std::string gptq(kLlama2_7B);
  gptq.insert(1, R"("quantization_config": {"bits": 4, "group_size": 128, "quant_method": "gptq"}, )");
  CHECK(shape_of(gptq).stored_dtype == "int4");
  std::string int8(kLlama2_7B);
  int8.insert(1, R"("quantization_config": {"load_in_8bit": true, "quant_method": "bitsandbytes"}, )");
  CHECK(shape_of(int8).stored_bytes_per_parameter == 1.0);
  std::string fp8(kLlama2_7B);
  fp8.insert(1, R"("quantization_config": {"quant_method": "fp8", "activation_scheme": "dynamic"}, )");
  CHECK(shape_of(fp8).stored_dtype == "fp8");
  std::string other(kLlama2_7B);
  other.insert(1, R"("quantization_config": {"quant_method": "hqq"}, )");
  CHECK(shape_of(other).stored_dtype.empty());  // unknown, not the compute dtype
  CHECK(shape_of(other).stored_bytes_per_parameter == 0);
}

TEST_CASE("shape_from_config: what it cannot compute, it says") {
  auto missing = refused(R"({"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32,
    "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(missing.reason == MissingReason::unparseable);
  CHECK(missing.detail == "config.json has no num_hidden_layers, which a llama config has");

  missing = refused(R"({"model_type": "llama", "hidden_size": "big", "num_hidden_layers": 2,
    "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(missing.detail == "config.json's hidden_size is \"big\", not a whole number");

  missing = refused(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 100000,
    "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(contains(missing.detail, "num_hidden_layers is 100000, over any model's"));

  missing = refused(R"({"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 2,
    "num_attention_heads": 0, "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(missing.detail == "config.json's num_attention_heads is 0");

  missing = refused(R"({"model_type": "llama", "hidden_size": 100, "num_hidden_layers": 2,
    "num_attention_heads": 3, "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(contains(missing.detail, "not a multiple of its 3 heads"));

  missing = refused(R"({"model_type": "falcon", "hidden_size": 4544})");
  CHECK(missing.reason == MissingReason::unsupported);
  CHECK(contains(missing.detail, "model_type \"falcon\" names no architecture"));
  CHECK(contains(missing.detail, "llama, mistral, mixtral"));
  CHECK(contains(missing.detail, "safetensors weights give the exact count"));

  missing = refused(R"({"model_type": "llava", "text_config": {"model_type": "llama", "hidden_size": 4096},
    "vision_config": {"hidden_size": 1024}})");
  CHECK(missing.reason == MissingReason::unsupported);
  CHECK(contains(missing.detail, "multimodal"));

  CHECK(refused("{}").reason == MissingReason::unsupported);

  missing = refused(R"({"model_type": "chatglm", "hidden_size": 4096, "inner_hidden_size": 16384,
    "num_layers": 28, "vocab_size": 130528})");
  CHECK(missing.reason == MissingReason::unsupported);
  CHECK(contains(missing.detail, "ChatGLM-6B (first version)"));

  missing = refused(R"({"model_type": "mixtral", "hidden_size": 4096, "num_hidden_layers": 2,
    "num_attention_heads": 32, "intermediate_size": 11008, "vocab_size": 32000})");
  CHECK(missing.detail == "config.json has no num_local_experts, which a mixtral config has");

  std::string bad_flag(kLlama2_7B);
  bad_flag.replace(bad_flag.find(R"("tie_word_embeddings": false)"), 28, R"("tie_word_embeddings": "yes")");
  CHECK(refused(bad_flag).detail == "config.json's tie_word_embeddings is \"yes\", not true or false");
}

TEST_CASE("shape_from_weights: counts from the weights, dimensions from the config") {
  const auto config = shape_of(kLlama2_7B);
  const std::map<std::string, std::string> weights = {
      {"parameters", "6738415616"}, {"largest_layer_parameters", "131072000"}, {"bytes", "13476831232"},
      {"dtype", "BF16"}, {"tensors", "291"}, {"files", "2"},
      {"linear.q_proj", "4096,4096,32"}, {"linear.extra", "16,8,1;8,4,2"}};
  auto shape = shape_from_weights(weights, &config);
  REQUIRE(shape);
  CHECK(shape->source == "safetensors");
  CHECK(shape->parameters == 6'738'415'616);
  CHECK(shape->hidden == 4096);
  CHECK(shape->architecture == "llama");
  CHECK(shape->stored_dtype == "bf16");  // as stored, though the config says float16
  CHECK(shape->stored_bytes_per_parameter == 2.0);
  REQUIRE(shape->linears.size() == 9);
  CHECK(shape->linears[0] == linear("q_proj", 4096, 4096, 32));
  CHECK(shape->linears[6] == linear("down_proj", 11008, 4096, 32));
  CHECK(shape->linears[7] == linear("extra", 16, 8, 1));
  CHECK(shape->linears[8] == linear("extra", 8, 4, 2));

  auto alone = shape_from_weights(weights, nullptr);
  REQUIRE(alone);
  CHECK(alone->parameters == 6'738'415'616);
  CHECK(alone->largest_layer_parameters == 131'072'000);
  CHECK_FALSE(alone->has_dimensions());
  CHECK(alone->linears.size() == 3);
}

TEST_CASE("shape_from_weights: refusals") {
  CHECK(shape_from_weights({}, nullptr).missing().reason == MissingReason::not_present);
  CHECK(shape_from_weights({{"parameters", "0"}}, nullptr).missing().reason == MissingReason::not_present);
  auto gptq = shape_from_weights({{"quantization", "gptq-awq"}, {"tensors", "4"}}, nullptr);
  REQUIRE_FALSE(gptq);
  CHECK(gptq.missing().reason == MissingReason::unsupported);
  CHECK(contains(gptq.missing().detail, "GPTQ"));
  for (const char* bad : {"1,2", "1,2,3,4", "a,b,c", "1,0,3", "", "1,2,3;"}) {
    auto shape = shape_from_weights({{"parameters", "10"}, {"linear.q_proj", bad}}, nullptr);
    REQUIRE_FALSE(shape);
    CHECK(shape.missing().detail.starts_with("the weights' linear.q_proj is"));
  }
}

TEST_CASE("parse_parameter_count: as people write counts") {
  CHECK(*parse_parameter_count("7B") == 7'000'000'000);
  CHECK(*parse_parameter_count("7b") == 7'000'000'000);
  CHECK(*parse_parameter_count("1.5B") == 1'500'000'000);
  CHECK(*parse_parameter_count("350M") == 350'000'000);
  CHECK(*parse_parameter_count("70e9") == 70'000'000'000);
  CHECK(*parse_parameter_count("7000000000") == 7'000'000'000);
  CHECK(*parse_parameter_count("6.7 B") == 6'700'000'000);
  CHECK(*parse_parameter_count(" 125m ") == 125'000'000);
  CHECK(*parse_parameter_count("1.2T") == 1'200'000'000'000);
  CHECK(*parse_parameter_count("13 billion") == 13'000'000'000);
  CHECK(*parse_parameter_count("6738415616") == 6'738'415'616);
  CHECK(*parse_parameter_count("100000000000000") == 100'000'000'000'000);
}

TEST_CASE("parse_parameter_count: refusals say why") {
  for (const char* garbage : {"", "  ", "abc", "7X", "7 GB", "B", "7e", "1,000", "0x10", "inf", "nan", "seven", "7B7"}) {
    auto count = parse_parameter_count(garbage);
    REQUIRE_FALSE(count);
    CHECK(count.missing().reason == MissingReason::unparseable);
    CHECK(contains(count.missing().detail, "is not a parameter count"));
  }
  CHECK(contains(parse_parameter_count("-7B").missing().detail, "negative"));
  CHECK(contains(parse_parameter_count("0").missing().detail, "zero"));
  CHECK(contains(parse_parameter_count("0B").missing().detail, "zero"));
  CHECK(contains(parse_parameter_count("1.5").missing().detail, "not a whole number"));
  CHECK(contains(parse_parameter_count("200T").missing().detail, "over 100 trillion"));
  CHECK(contains(parse_parameter_count("1e300").missing().detail, "over 100 trillion"));
  CHECK(contains(parse_parameter_count("\x01\xff").missing().detail, "\"??\""));
}

TEST_CASE("shape_from_count: a bare count") {
  const auto shape = shape_from_count(7'000'000'000);
  CHECK(shape.parameters == 7'000'000'000);
  CHECK(shape.source == "parameters");
  CHECK(shape.largest_layer_parameters == 0);
  CHECK_FALSE(shape.has_dimensions());
}

TEST_CASE("shape_from_config: a config that trains with dropout says so; Llama-family configs with 0.0 do not") {
  CHECK_FALSE(shape_of(kLlama2_7B).dropout);
  CHECK_FALSE(shape_of(kChatGLM3_6B).dropout);  // attention_dropout and hidden_dropout 0.0
  std::string with_dropout(kPythia_160M);
  with_dropout.insert(with_dropout.size() - 1, R"(, "attention_dropout": 0.1)");
  CHECK(shape_of(with_dropout).dropout);
}

TEST_CASE("assumed_decoder_shape: the nearest typical decoder's dimensions, the count as given") {
  const auto seven = assumed_decoder_shape(7'000'000'000);
  CHECK(seven.parameters == 7'000'000'000);
  CHECK(seven.assumed_from == "Llama-2-7B");
  CHECK(seven.hidden == 4096);
  CHECK(seven.layers == 32);
  CHECK(seven.has_dimensions());
  CHECK_FALSE(seven.linears.empty());
  CHECK(assumed_decoder_shape(8'000'000'000).assumed_from == "Llama-3-8B");
  CHECK(assumed_decoder_shape(30'000'000'000).assumed_from == "Qwen2.5-32B");
  CHECK(assumed_decoder_shape(100'000'000).assumed_from == "Qwen2.5-0.5B");
  CHECK(assumed_decoder_shape(400'000'000'000).assumed_from == "Qwen1.5-110B");
}
