// Host memory per node against the worked table of the ZeRO memory
// accounting (one node, 8 GPUs, bf16, AdamW, full fine-tuning, 5 GB shards
// copied by safetensors < 0.8, sub-groups of 1e9, 4 GB baseline per rank):
// save peaks 149 / 60 GB (7B ZeRO-2 / ZeRO-3) and 245 / 64 GB (13B).
#include <doctest/doctest.h>

#include "estimate/host_memory.h"

using namespace ftdiag::estimate;

namespace {

ParameterSplit full(double parameters) {
  return {.total = parameters, .trainable = parameters, .frozen = 0, .frozen_bytes_per_weight = 2};
}

TrainingSetup eight_gpus(int stage) {
  TrainingSetup setup;
  setup.zero_stage = stage;
  setup.gpus_per_node = 8;
  setup.rank_baseline_bytes = 4e9;  // the worked table's 4 GB
  return setup;
}

double gb(const Term& term) { return term.bytes / 1e9; }

}  // namespace

TEST_CASE("host memory: the ZeRO-2 save clones the state dict on every rank: 149 GB for 7B on 8 GPUs") {
  const auto host = host_memory_per_node(full(7e9), eight_gpus(2));
  CHECK(gb(host.checkpoint_save.peak) == doctest::Approx(149.0));
  CHECK(host.checkpoint_save.largest_phase == "every rank's copy of the state dict");
  REQUIRE(host.checkpoint_save.phases.size() == 3);
  CHECK(gb(host.checkpoint_save.phases[0]) == doctest::Approx(117.0));  // 8 x 14 + 5
  CHECK(gb(host.checkpoint_save.phases[1]) == doctest::Approx(14.0));   // DeepSpeed's model states, rank 0
  CHECK(gb(host.checkpoint_save.phases[2]) == doctest::Approx(28.0));   // 4Ψ of optimizer partitions
  CHECK(host.checkpoint_save.peak.formula.find("8 ranks x (2 B x 7.00 B)") != std::string::npos);
  // Init before DeepSpeed 0.18.7: N·4Ψ, plus the baseline (224 + 32).
  CHECK(gb(host.init) == doctest::Approx(256.0));
  // Resume: N·2Ψ + 12Ψ (196) plus the baseline.
  CHECK(gb(host.resume) == doctest::Approx(228.0));
  CHECK(gb(host.steady) == doctest::Approx(32.0));
}

TEST_CASE("host memory: ZeRO-3's gather keeps one copy on rank 0: 60 GB for 7B, 64 GB for 13B") {
  const auto z3_7b = host_memory_per_node(full(7e9), eight_gpus(3));
  CHECK(gb(z3_7b.checkpoint_save.peak) == doctest::Approx(60.0));  // 32 + max(14 + 5, 8 x 4 x 0.875)
  CHECK(z3_7b.checkpoint_save.largest_phase == "the optimizer partitions");
  const auto z3_13b = host_memory_per_node(full(13e9), eight_gpus(3));
  CHECK(gb(z3_13b.checkpoint_save.peak) == doctest::Approx(64.0));  // 32 + 8 x 4 x min(1.625, 1)
  const auto z2_13b = host_memory_per_node(full(13e9), eight_gpus(2));
  CHECK(gb(z2_13b.checkpoint_save.peak) == doctest::Approx(245.0));
  // Without the gather only the optimizer partitions are written.
  auto no_gather = eight_gpus(3);
  no_gather.gather_16bit_weights_on_save = false;
  CHECK(host_memory_per_node(full(7e9), no_gather).checkpoint_save.phases.size() == 1);
}

TEST_CASE("host memory: LoRA under ZeRO-2 still clones the frozen base at save (7B on 4 GPUs: 72 GB without baseline)") {
  ParameterSplit lora{.total = 7e9 + 40e6, .trainable = 40e6, .frozen = 7e9, .frozen_bytes_per_weight = 2};
  auto setup = eight_gpus(2);
  setup.gpus_per_node = 4;
  setup.rank_baseline_bytes = 0;
  const auto host = host_memory_per_node(lora, setup);
  CHECK(gb(host.checkpoint_save.peak) == doctest::Approx(4 * (14.0 + 0.08) + 5.0));
  setup.zero_stage = 3;
  CHECK(gb(host_memory_per_node(lora, setup).checkpoint_save.peak) == doctest::Approx(14.08 + 5.0));
}

TEST_CASE("host memory: offload keeps the optimizer (and parameters) in host memory all along, and the save adds to it") {
  auto setup = eight_gpus(3);
  setup.offload_optimizer = true;
  auto host = host_memory_per_node(full(70e9), setup);
  CHECK(gb(host.steady) == doctest::Approx(18 * 70.0 + 32));
  setup.offload_param = true;
  host = host_memory_per_node(full(70e9), setup);
  CHECK(gb(host.steady) == doctest::Approx(20 * 70.0 + 32));
  // The reference's 70B figure: 1400 + 140 + 5 + 32 = 1577 GB.
  CHECK(gb(host.checkpoint_save.peak) == doctest::Approx(1577.0));
  // Two nodes share the offloaded states.
  setup.nodes = 2;
  CHECK(gb(host_memory_per_node(full(70e9), setup).steady) == doctest::Approx(10 * 70.0 + 32));
}

TEST_CASE("host memory: ZeRO-2's optimizer offload keeps a 16-bit copy of each partition, and the accumulated gradients") {
  // stage_1_and_2.py with offload_optimizer: the fp32 master, its fp32
  // gradients and Adam's moments (16 B), param_buffer_of_bit16_for_cpu_offload_groups
  // (2 B); with gradient accumulation, accumulated_grads_in_cpu (2 B more).
  auto setup = eight_gpus(2);
  setup.offload_optimizer = true;
  auto host = host_memory_per_node(full(7e9), setup);
  CHECK(gb(host.steady) == doctest::Approx(18 * 7.0 + 32));
  CHECK(host.steady.formula.find("partition copy") != std::string::npos);
  setup.gradient_accumulation_steps = 8;
  host = host_memory_per_node(full(7e9), setup);
  CHECK(gb(host.steady) == doctest::Approx(20 * 7.0 + 32));
  CHECK(host.steady.formula.find("gradients accumulated over 8 micro-batches") != std::string::npos);
  // ZeRO-3's offload keeps neither (its 16-bit gradient buffer is counted instead).
  setup.zero_stage = 3;
  CHECK(gb(host_memory_per_node(full(7e9), setup).steady) == doctest::Approx(18 * 7.0 + 32));
}

TEST_CASE("host memory: every rank loads the whole model below ZeRO-3, DeepSpeed >= 0.18.7 flattens on the GPU") {
  auto setup = eight_gpus(2);
  setup.flatten_on_gpu = true;
  const auto host = host_memory_per_node(full(7e9), setup);
  CHECK(gb(host.model_load) == doctest::Approx(8 * 14.0 + 32));
  CHECK(gb(host.init) == doctest::Approx(32.0));
  CHECK(host.peak().name == "checkpoint save");
}
