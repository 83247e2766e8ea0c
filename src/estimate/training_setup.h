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

// bf16/fp16: mixed precision as DeepSpeed and the ZeRO paper keep it (16-bit
// weights and gradients, an fp32 master copy in the optimizer); fp32;
// pure_bf16: bf16 weights, gradients and Adam moments, no master copy
// (LLaMA-Factory's pure_bf16, a model loaded in bf16 without DeepSpeed);
// amp_bf16: fp32 weights and gradients with bf16 autocast (torch AMP, as a
// trainer's --bf16 runs a model loaded or upcast to fp32 without DeepSpeed).
enum class Precision { bf16, fp16, fp32, pure_bf16, amp_bf16 };

std::string_view to_string(Precision precision);
std::optional<Precision> precision_from_string(std::string_view text);
// Bytes of one weight as training keeps it: 2 for bf16/fp16/pure_bf16, 4
// for fp32 and amp_bf16.
double bytes_per_weight(Precision precision);
// Bytes of one activation element: 4 in fp32, else 2 (autocast computes in bf16).
double bytes_per_activation(Precision precision);

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
  // QLoRA's base: 8, 4 (bitsandbytes NF4, the default) or 2 bits a weight.
  int quantization_bits = 4;
  // Freeze-tuning trains the last N decoder layers (LLaMA-Factory's
  // freeze_trainable_layers, default 2).
  std::uint64_t freeze_trainable_layers = 2;
  std::uint64_t lora_rank = 8;
  // The module names LoRA adapts ("q_proj", "v_proj"); empty: every linear
  // layer of the decoder (LLaMA-Factory's and axolotl's "all").
  std::vector<std::string> lora_targets;
  // The trained parameters when they are known (PEFT's "trainable params:
  // N" line, a count the job printed): LoRA's adapters or the layers
  // freeze-tuning trains are then not derived from the model's shape. 0:
  // derived.
  double trainable_parameters = 0;
  Precision precision = Precision::bf16;
  std::uint64_t micro_batch = 1;
  std::uint64_t sequence_length = 2048;
  // Full recomputation: each layer keeps only its input and is run again
  // in the backward (transformers' gradient_checkpointing).
  bool gradient_checkpointing = false;
  // Selective recomputation (Korthikanti et al. §5): the attention's s x s
  // scores, softmax and dropout are recomputed, the rest kept.
  bool selective_recompute = false;
  // Dropout masks are kept whatever the model's config says (the paper's GPT
  // trains with dropout; --dropout).
  bool dropout = false;
  // Megatron-style tensor parallelism: each layer's matrices split over t
  // GPUs (weights, gradients, optimizer states and the activations inside
  // attention and MLP); ZeRO's data-parallel ranks are the GPUs / t.
  // Sequence parallelism splits the rest of the activations (norms, dropout,
  // the layer's inputs) over the same t GPUs.
  std::uint64_t tensor_parallel = 1;
  bool sequence_parallel = false;
  Attention attention = Attention::flash;
  // ZeRO-3: stage3_gather_16bit_weights_on_model_save (the rank-0 gather).
  bool gather_16bit_weights_on_save = true;
  double sub_group_size = 1e9;  // ZeRO-3 elements per optimizer sub-group
  // Micro-batches whose gradients are summed before each optimizer step:
  // above 1, DeepSpeed's ZeRO-1/2 optimizer offload keeps the summed
  // gradients in host memory between micro-batches.
  std::uint64_t gradient_accumulation_steps = 1;
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

  std::uint64_t data_parallel_ranks() const { return gpus_per_node * nodes / (tensor_parallel ? tensor_parallel : 1); }
};

}  // namespace ftdiag::estimate
