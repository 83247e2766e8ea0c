// The ZeRO-stage advisor: the least sharded stage whose GPU memory and host
// memory (its checkpoint save included) fit, with why the faster ones did not.
#include <doctest/doctest.h>

#include "estimate/advisor.h"

using namespace ftdiag::estimate;

namespace {

ModelShape count(double parameters) {
  ModelShape shape;
  shape.parameters = static_cast<std::uint64_t>(parameters);
  shape.source = "parameters";
  return shape;
}

TrainingSetup node_of(std::uint64_t gpus) {
  TrainingSetup setup;
  setup.gpus_per_node = gpus;
  setup.flatten_on_gpu = true;  // DeepSpeed >= 0.18.7: no host-side flatten at init
  setup.rank_baseline_bytes = 4e9;  // the figures below count a 4 GB baseline per rank
  return setup;
}

bool says(const Advice& advice, const std::string& text) {
  for (const auto& reason : advice.reasons) {
    if (reason.find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("advisor: ZeRO-2 when the GPUs and the node's RAM both hold it") {
  const auto advice = advise(count(1e9), node_of(8), {.gpu_memory_bytes = 80e9, .host_memory_bytes = 512e9});
  REQUIRE(advice.chosen);
  const auto& chosen = advice.options[*advice.chosen];
  CHECK(chosen.setup.zero_stage == 2);
  CHECK_FALSE(chosen.setup.offload_optimizer);
  CHECK(chosen.fits_gpu == true);
  CHECK(chosen.fits_host == true);
}

TEST_CASE("advisor: a 3B full fine-tune on 8 GPUs and 64 GiB: ZeRO-2's save does not fit, ZeRO-3 does") {
  const double gib64 = 64.0 * (1 << 30);
  const auto advice = advise(count(3e9), node_of(8), {.gpu_memory_bytes = 80e9, .host_memory_bytes = gib64, .host_memory_source = "--host-mem"});
  REQUIRE(advice.chosen);
  const auto& chosen = advice.options[*advice.chosen];
  CHECK(chosen.setup.zero_stage == 3);
  CHECK_FALSE(chosen.setup.offload_optimizer);
  // ZeRO-2: 32 GB baseline + 8 x 6 GB + 5 GB shard copy = 85 GB at save.
  CHECK(advice.options[0].host_save_peak_bytes == doctest::Approx(85e9));
  CHECK(says(advice, "ZeRO-2 fits the GPUs"));
  CHECK(says(advice, "needs 79.2 GiB of host RAM per node at its checkpoint save; this node has 64.0 GiB (--host-mem)"));
  // Fewer ranks per node: 4n GB of baseline + 6n GB of copies + 5 GB fits 58.4 GB (85% of 64 GiB) up to n = 5.
  REQUIRE(advice.zero2_ranks_per_node_that_fit);
  CHECK(*advice.zero2_ranks_per_node_that_fit == 5);
}

TEST_CASE("advisor: offload only when even ZeRO-3 does not fit the GPUs, LoRA when nothing full does") {
  // 70B on 8 x 80 GB: ZeRO-3 needs 140 GB per GPU; with the optimizer offloaded 17.5 GB.
  auto advice = advise(count(70e9), node_of(8), {.gpu_memory_bytes = 80e9, .host_memory_bytes = 2048e9});
  REQUIRE(advice.chosen);
  CHECK(advice.options[*advice.chosen].setup.zero_stage == 3);
  CHECK(advice.options[*advice.chosen].setup.offload_optimizer);
  CHECK(says(advice, "ZeRO-3, 16-bit gather on save does not fit the GPUs"));
  // One 24 GB GPU, 7B: no full option fits; LoRA needs the model's layers, so a bare count gets none of them.
  advice = advise(count(7e9), node_of(1), {.gpu_memory_bytes = 24e9, .host_memory_bytes = 64e9});
  CHECK_FALSE(advice.chosen);
  CHECK(says(advice, "Nothing fits"));
}

TEST_CASE("advisor: unknown GPU memory is said, and host memory alone decides") {
  const auto advice = advise(count(3e9), node_of(8), {.host_memory_bytes = 64.0 * (1 << 30)});
  REQUIRE(advice.chosen);
  CHECK(advice.options[*advice.chosen].setup.zero_stage == 3);
  CHECK_FALSE(advice.options[*advice.chosen].fits_gpu.has_value());
  CHECK(says(advice, "The GPUs' memory is not known"));
}

TEST_CASE("advisor: a tight full fine-tune is advised before switching to LoRA, and said to be tight") {
  ModelShape llama;
  llama.parameters = 6'738'415'616;
  llama.linears = {{"q_proj", 4096, 4096, 32}, {"k_proj", 4096, 4096, 32}, {"v_proj", 4096, 4096, 32}, {"o_proj", 4096, 4096, 32},
                   {"gate_proj", 4096, 11008, 32}, {"up_proj", 4096, 11008, 32}, {"down_proj", 11008, 4096, 32}};
  // ZeRO-3's save: 32 GB of baseline + max(13.5 + 5, 8 x 4 x 0.84) GB = 59.0 GB: within 64 GiB, not within its 85%.
  const auto advice = advise(llama, node_of(8), {.gpu_memory_bytes = 80.0 * (1 << 30), .host_memory_bytes = 64.0 * (1 << 30)});
  REQUIRE(advice.chosen);
  const auto& chosen = advice.options[*advice.chosen];
  CHECK(chosen.setup.finetune == Finetune::full);
  CHECK(chosen.setup.zero_stage == 3);
  CHECK(chosen.tight);
  CHECK(says(advice, "tight"));
  // LoRA is among the options, with its numbers, but not chosen.
  bool lora_listed = false;
  for (const auto& o : advice.options) lora_listed |= o.setup.finetune == Finetune::lora && o.fits_host == true;
  CHECK(lora_listed);
}
