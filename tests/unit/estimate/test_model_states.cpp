// Model states per GPU against the ZeRO paper (Rajbhandari et al., SC'20,
// Fig. 1: Ψ = 7.5 B, N_d = 64, K = 12: 120 -> 31.4 -> 16.6 -> 1.9 GB) and
// against what offload and LoRA change.
#include <cmath>

#include <doctest/doctest.h>

#include "estimate/memory_estimate.h"

using namespace ftdiag::estimate;

namespace {

TrainingSetup on_ranks(int stage, std::uint64_t ranks) {
  TrainingSetup setup;
  setup.zero_stage = stage;
  setup.gpus_per_node = ranks;
  return setup;
}

double states_gb(double parameters, const TrainingSetup& setup) {
  ParameterSplit split{.total = parameters, .trainable = parameters, .frozen = 0, .frozen_bytes_per_weight = 2};
  return model_states_per_gpu(split, setup).total() / 1e9;
}

}  // namespace

TEST_CASE("model states: the ZeRO paper's 7.5B example on 64 GPUs, stage by stage") {
  const double psi = 7.5e9;
  CHECK(states_gb(psi, on_ranks(0, 64)) == doctest::Approx(120.0));
  CHECK(std::round(states_gb(psi, on_ranks(1, 64)) * 10) / 10 == doctest::Approx(31.4));
  CHECK(std::round(states_gb(psi, on_ranks(2, 64)) * 10) / 10 == doctest::Approx(16.6));
  CHECK(std::round(states_gb(psi, on_ranks(3, 64)) * 10) / 10 == doctest::Approx(1.9));
  // The exact values behind the rounding: 4Ψ + 12Ψ/64, 2Ψ + 14Ψ/64, 16Ψ/64.
  CHECK(states_gb(psi, on_ranks(1, 64)) == doctest::Approx(30 + 1.40625));
  CHECK(states_gb(psi, on_ranks(2, 64)) == doctest::Approx(15 + 1.640625));
  CHECK(states_gb(psi, on_ranks(3, 64)) == doctest::Approx(1.875));
}

TEST_CASE("model states: the worked table's 7B and 13B on 8 GPUs (26.3 / 14.0 and 48.8 / 26.0 GB)") {
  CHECK(states_gb(7e9, on_ranks(2, 8)) == doctest::Approx(26.25));
  CHECK(states_gb(7e9, on_ranks(3, 8)) == doctest::Approx(14.0));
  CHECK(states_gb(13e9, on_ranks(2, 8)) == doctest::Approx(48.75));
  CHECK(states_gb(13e9, on_ranks(3, 8)) == doctest::Approx(26.0));
}

TEST_CASE("model states: offload leaves the 16-bit weights (ZeRO-2) or a partition of them (ZeRO-3) on the GPU") {
  auto z2 = on_ranks(2, 8);
  z2.offload_optimizer = true;
  CHECK(states_gb(7e9, z2) == doctest::Approx(14.0));  // DeepSpeed's estimator: 2Ψ
  auto z3 = on_ranks(3, 8);
  z3.offload_optimizer = true;
  CHECK(states_gb(7e9, z3) == doctest::Approx(1.75));  // 2Ψ/N
  z3.offload_param = true;
  CHECK(states_gb(7e9, z3) == doctest::Approx(0.0));
}

TEST_CASE("model states: fp32 training keeps 4-byte weights and gradients and Adam's two moments") {
  auto setup = on_ranks(0, 1);
  setup.precision = Precision::fp32;
  CHECK(states_gb(1e9, setup) == doctest::Approx(16.0));  // 4 + 4 + 8
}

TEST_CASE("model states: LoRA trains only its adapters, the frozen base is weights alone, partitioned only by ZeRO-3") {
  ModelShape shape;
  shape.parameters = 7'000'000'000;
  shape.linears = {{"q_proj", 4096, 4096, 32}, {"v_proj", 4096, 4096, 32}, {"lm_head", 4096, 32000, 1}};
  TrainingSetup setup = on_ranks(2, 8);
  setup.finetune = Finetune::lora;
  setup.lora_rank = 16;
  auto split = split_parameters(shape, setup);
  REQUIRE(split);
  // rank x (in + out) x copies, for q_proj and v_proj (not the head): 16 x 8192 x 64.
  CHECK(split->trainable == doctest::Approx(16.0 * 8192 * 64));
  CHECK(split->frozen == doctest::Approx(7e9));
  const auto states = model_states_per_gpu(*split, setup);
  CHECK(states.weights.bytes == doctest::Approx(2 * (7e9 + split->trainable)));
  CHECK(states.optimizer_states.bytes == doctest::Approx(12 * split->trainable / 8));
  setup.zero_stage = 3;
  CHECK(model_states_per_gpu(*split, setup).weights.bytes == doctest::Approx(2 * (7e9 + split->trainable) / 8));
  // QLoRA stores the base in about 4 bits.
  setup.zero_stage = 2;
  setup.finetune = Finetune::qlora;
  auto quantized = split_parameters(shape, setup);
  REQUIRE(quantized);
  CHECK(model_states_per_gpu(*quantized, setup).weights.bytes == doctest::Approx(0.55 * 7e9 + 2 * split->trainable));
  // Targets name modules; a target the model lacks is an error, not zero.
  setup.lora_targets = {"c_attn"};
  CHECK_FALSE(split_parameters(shape, setup));
  // A bare count cannot say what LoRA trains.
  ModelShape bare;
  bare.parameters = 7000000000;
  CHECK_FALSE(split_parameters(bare, setup));
  // Unless the job said it (PEFT's "trainable params: 4,194,304"): the adapters come on top of the base.
  setup.lora_targets.clear();
  setup.finetune = Finetune::lora;
  setup.trainable_parameters = 4194304;
  auto given = split_parameters(bare, setup);
  REQUIRE(given);
  CHECK(given->trainable == 4194304);
  CHECK(given->frozen == 7e9);
  CHECK(given->total == 7e9 + 4194304);
  CHECK(given->trainable_formula.find("(given)") != std::string::npos);
  // Freeze-tuning's given count is part of the model.
  setup.finetune = Finetune::freeze;
  given = split_parameters(bare, setup);
  REQUIRE(given);
  CHECK(given->total == 7e9);
  CHECK(given->frozen == doctest::Approx(7e9 - 4194304));
}

TEST_CASE("optimizer step: DeepSpeed's fp32 gradient partition makes ZeRO-2 2Ψ + 18Ψ/N, as its estimator since 0.14.3") {
  const ParameterSplit t5_3b{.total = 2851e6, .trainable = 2851e6, .frozen = 0, .frozen_bytes_per_weight = 2};
  const auto setup = on_ranks(2, 8);
  const double states = model_states_per_gpu(t5_3b, setup).total();
  const auto step = optimizer_step_per_gpu(t5_3b, setup);
  CHECK(step.bytes == doctest::Approx(4 * 2851e6 / 8));
  // DeepSpeed's ZeRO-2 row without offload: int(2Ψ + int(18Ψ/8)) = 12.12 GB.
  CHECK(states + step.bytes == doctest::Approx(2 * 2851e6 + 18 * 2851e6 / 8));
  // Stage 1 converts the same partition; stage 3 one sub-group at a time.
  CHECK(optimizer_step_per_gpu(t5_3b, on_ranks(1, 8)).bytes == doctest::Approx(4 * 2851e6 / 8));
  const ParameterSplit seventy_b{.total = 70e9, .trainable = 70e9, .frozen = 0, .frozen_bytes_per_weight = 2};
  CHECK(optimizer_step_per_gpu(seventy_b, on_ranks(3, 8)).bytes == doctest::Approx(4e9));  // 4 B x sub_group_size 1e9
  // None without ZeRO, none when the optimizer steps in host memory.
  CHECK(optimizer_step_per_gpu(t5_3b, on_ranks(0, 8)).bytes == 0);
  auto offloaded = on_ranks(2, 8);
  offloaded.offload_optimizer = true;
  CHECK(optimizer_step_per_gpu(t5_3b, offloaded).bytes == 0);
}

TEST_CASE("tensor parallelism: each GPU holds 1/t of every layer, and ZeRO partitions over the GPUs / t") {
  auto setup = on_ranks(2, 8);
  setup.tensor_parallel = 2;
  CHECK(setup.data_parallel_ranks() == 4);
  const auto shape = assumed_decoder_shape(7'000'000'000);
  const auto estimate = estimate_memory(shape, setup);
  REQUIRE(estimate);
  // ZeRO-2 on each GPU's half: 2 B x Ψ/2 of weights, (2 + 12) B x Ψ/2 / 4 partitioned.
  CHECK(estimate->per_gpu.states.weights.bytes == doctest::Approx(2 * 3.5e9));
  CHECK(estimate->per_gpu.model_states() == doctest::Approx(2 * 3.5e9 + 14 * 3.5e9 / 4));
  CHECK(estimate->deepspeed_rows.empty());  // DeepSpeed's estimator has no tensor parallelism
  setup.tensor_parallel = 3;
  CHECK_FALSE(estimate_memory(shape, setup));  // 8 GPUs do not split into groups of 3
}

TEST_CASE("freeze-tuning trains the last N decoder layers; pure bf16 keeps 8 B a parameter, AMP 18") {
  const auto shape = assumed_decoder_shape(7'000'000'000);  // Llama-2-7B's layers
  auto setup = on_ranks(0, 1);
  setup.finetune = Finetune::freeze;
  auto split = split_parameters(shape, setup);
  REQUIRE(split);
  // One Llama-2-7B layer: q, k, v, o (4096 x 4096) and gate, up, down (4096 x 11008): 202.4 M.
  const double layer = 4.0 * 4096 * 4096 + 3.0 * 4096 * 11008;
  CHECK(split->trainable == doctest::Approx(2 * layer));
  setup.freeze_trainable_layers = 4;
  CHECK(split_parameters(shape, setup)->trainable == doctest::Approx(4 * layer));
  // No layers to count: all of it, an upper bound, said.
  const auto bare = split_parameters(shape_from_count(7'000'000'000), setup);
  REQUIRE(bare);
  CHECK(bare->trainable == doctest::Approx(7e9));
  CHECK(bare->trainable_formula.find("an upper bound") != std::string::npos);
  const ParameterSplit all{.total = 1e9, .trainable = 1e9, .frozen = 0, .frozen_bytes_per_weight = 2};
  auto pure = on_ranks(0, 1);
  pure.precision = Precision::pure_bf16;
  CHECK(model_states_per_gpu(all, pure).total() == doctest::Approx(8e9));
  auto amp = on_ranks(0, 1);
  amp.precision = Precision::amp_bf16;
  CHECK(model_states_per_gpu(all, amp).total() == doctest::Approx(16e9));  // + 2 B of autocast copies per estimate
}
