// How a model is trained, as far as memory is concerned: the ZeRO stage and
// its offloads, how many ranks share the work, what is trained, the
// precision, the batch. Flags of `ftdiag estimate` and the facts of a
// job's configs (DeepSpeed JSON, trainer arguments) both fill it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::estimate {

enum class Finetune { full, lora, qlora, freeze };

std::string_view to_string(Finetune finetune);
std::optional<Finetune> finetune_from_string(std::string_view text);

enum class Precision { bf16, fp16, fp32 };

std::string_view to_string(Precision precision);
std::optional<Precision> precision_from_string(std::string_view text);
// Bytes of one weight as training keeps it: 2 for bf16/fp16, 4 for fp32.
double bytes_per_weight(Precision precision);

// Attention kernels: "eager" keeps the s x s attention scores for the
// backward (Korthikanti et al. 2022 count them); flash attention and
// PyTorch's SDPA recompute them, keeping only O(s) per head.
enum class Attention { flash, eager };

struct TrainingSetup {
  int zero_stage = 2;  // 0 (plain data parallel) to 3
  bool offload_optimizer = false;
  bool offload_param = false;  // ZeRO-3 only
  std::uint64_t gpus_per_node = 1;
  std::uint64_t nodes = 1;
  Finetune finetune = Finetune::full;
  std::uint64_t lora_rank = 8;
  // The module names LoRA adapts ("q_proj", "v_proj"); empty: every linear
  // layer of the decoder (LLaMA-Factory's and axolotl's "all").
  std::vector<std::string> lora_targets;
  Precision precision = Precision::bf16;
  std::uint64_t micro_batch = 1;
  std::uint64_t sequence_length = 2048;
  bool gradient_checkpointing = false;
  Attention attention = Attention::flash;
  // ZeRO-3: stage3_gather_16bit_weights_on_model_save (the rank-0 gather).
  bool gather_16bit_weights_on_save = true;
  double sub_group_size = 1e9;  // ZeRO-3 elements per optimizer sub-group
  // DeepSpeed's communication buckets (elements); its defaults.
  double reduce_bucket_size = 5e8;
  double allgather_bucket_size = 5e8;
  // The Trainer's save writes safetensors through a copy of each shard on
  // rank 0 (safetensors < 0.8); max_shard_size bounds that copy.
  bool shard_copy_on_save = true;
  double max_shard_bytes = 5e9;
  // Host memory of one rank outside the model (Python, torch and CUDA
  // libraries, tokenizer, dataset, workers): assumed unless measured.
  // 4 GiB, what "--rank-baseline 4G" means (sizes on the command line count
  // as free -g does), so the default reads back as the figure it is.
  double rank_baseline_bytes = 4.0 * (1ULL << 30);
  bool rank_baseline_measured = false;
  // The baseline was measured on CPU ranks while they trained: it holds
  // their model states already, which are then not added again.
  bool rank_baseline_includes_states = false;
  // DeepSpeed >= 0.18.7 flattens ZeRO-1/2 parameter groups on the GPU, so
  // its initialisation no longer stages them in host memory.
  bool flatten_on_gpu = false;
  // DeepSpeed before 0.14.3 (PR #5099) budgeted ZeRO-2 without offload as
  // 4Ψ + 16Ψ/N per GPU in its estimator; its documentation's tables still
  // print that formula. Only the estimator's rows shown beside ftdiag's own
  // figures change.
  bool deepspeed_estimator_before_0_14_3 = false;
  // Ranks that train on the CPU (gloo): their model states, activations
  // and buffers live in host memory too, and each rank's count joins the
  // node's steady figure. Used to check the model against real CPU jobs.
  bool train_on_cpu = false;

  std::uint64_t data_parallel_ranks() const { return gpus_per_node * nodes; }
};

}  // namespace ftdiag::estimate
