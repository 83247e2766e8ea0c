// DeepSpeed's estimators, reproduced to the byte: the tables its documentation
// prints (docs/code-docs/source/memory.rst, t5-3b on one node of 8 GPUs, "cold"
// with 2851e6 parameters and a 32e6 largest layer), and the arithmetic of
// estimate_zero{2,3}_model_states_mem_needs over a table of sizes.
#include <doctest/doctest.h>

#include "estimate/deepspeed_estimators.h"

using namespace ftdiag::estimate;

TEST_CASE("deepspeed estimators: ZeRO-2 all_cold prints DeepSpeed's documented table (formula before 0.14.3)") {
  const auto rows = deepspeed_zero2_rows(2851e6, 8, 1, Zero2Formula::before_0_14_3);
  REQUIRE(rows.size() == 2);
  CHECK(deepspeed_row_text(rows[0]) == "  127.45GB |   5.31GB | offload_optimizer=cpu ");
  CHECK(deepspeed_row_text(rows[1]) == "  127.45GB |  15.93GB | offload_optimizer=none");
}

TEST_CASE("deepspeed estimators: ZeRO-2 since 0.14.3 budgets 2Ψ + 18Ψ/N without offload") {
  const auto rows = deepspeed_zero2_rows(2851e6, 8, 1);
  CHECK(rows[1].gpu_bytes == 2 * 2851000000LL + 6414750000LL);  // int(18 * 2851e6 / 8)
  CHECK(deepspeed_row_text(rows[1]) == "  127.45GB |  11.28GB | offload_optimizer=none");
  // Offload: 2Ψ on the GPU, Ψ·max(4·N, 16)·1.5 per node.
  CHECK(rows[0].gpu_bytes == 5702000000LL);
  CHECK(rows[0].cpu_bytes == 136848000000LL);
}

TEST_CASE("deepspeed estimators: ZeRO-3 all_cold prints DeepSpeed's documented table") {
  const auto rows = deepspeed_zero3_rows(2851e6, 32e6, 8, 1);
  REQUIRE(rows.size() == 6);
  CHECK(deepspeed_row_text(rows[0]) == "   71.69GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=1");
  CHECK(deepspeed_row_text(rows[1]) == "  127.45GB |   0.12GB | offload_param=cpu , offload_optimizer=cpu , zero_init=0");
  CHECK(deepspeed_row_text(rows[2]) == "   63.72GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=1");
  CHECK(deepspeed_row_text(rows[3]) == "  127.45GB |   0.78GB | offload_param=none, offload_optimizer=cpu , zero_init=0");
  CHECK(deepspeed_row_text(rows[4]) == "    1.43GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=1");
  CHECK(deepspeed_row_text(rows[5]) == "  127.45GB |   6.09GB | offload_param=none, offload_optimizer=none, zero_init=0");
}

TEST_CASE("deepspeed estimators: a table of sizes, GPUs and nodes gives DeepSpeed's own numbers to the byte") {
  // Expected values: DeepSpeed's estimate_zero2/zero3_model_states_mem_needs
  // run on these inputs (Python floats, truncated by int(): note 55999999999).
  struct Row {
    double params;
    double largest;
    std::int64_t gpus;
    std::int64_t nodes;
    std::int64_t zero2[4];  // offload cpu: cpu, gpu; none: cpu, gpu
    std::int64_t zero3[6][2];  // the six rows, cpu and gpu each
  };
  const Row rows[] = {
      Row{125000000.0, 38600000.0, 1, 1, {3000000000, 250000000, 750000000, 2500000000}, {{3375000000, 154400000}, {3375000000, 154400000}, {3000000000, 404400000}, {3000000000, 404400000}, {231600000, 2404400000}, {750000000, 2404400000}}},
      Row{1300000000.0, 103000000.0, 2, 1, {31200000000, 2600000000, 15600000000, 14300000000}, {{35100000000, 412000000}, {35100000000, 412000000}, {31200000000, 1712000000}, {31200000000, 1712000000}, {1236000000, 12112000000}, {15600000000, 12112000000}}},
      Row{6738415616, 131072000, 8, 1, {323443949568, 13476831232, 323443949568, 28638266368}, {{181937221632, 524288000}, {323443949568, 524288000}, {161721974784, 2208891904}, {323443949568, 2208891904}, {6291456000, 15685723136}, {323443949568, 15685723136}}},
      Row{13015864320, 163840000, 8, 2, {1249522974720, 26031728640, 624761487360, 40674576000}, {{175714168320, 655360000}, {624761487360, 655360000}, {156190371840, 2282343040}, {624761487360, 2282343040}, {7864320000, 15298207360}, {624761487360, 15298207360}}},
      Row{68976648192, 262144000, 8, 4, {13243516452864, 137953296384, 3310879113216, 176752660992}, {{465592375296, 1048576000}, {3310879113216, 1048576000}, {413859889152, 5359616512}, {3310879113216, 5359616512}, {12582912000, 39847940608}, {3310879113216, 39847940608}}},
      Row{7000000000.0, 131000000.0, 3, 3, {378000000000, 14000000000, 126000000000, 28000000000}, {{63000000000, 524000000}, {126000000000, 524000000}, {55999999999, 2079555555}, {126000000000, 2079555555}, {2358000000, 14524000000}, {126000000000, 14524000000}}},
  };
  for (const auto& r : rows) {
    CAPTURE(r.params);
    CAPTURE(r.gpus);
    CAPTURE(r.nodes);
    const auto z2 = deepspeed_zero2_rows(r.params, r.gpus, r.nodes);
    CHECK(z2[0].cpu_bytes == r.zero2[0]);
    CHECK(z2[0].gpu_bytes == r.zero2[1]);
    CHECK(z2[1].cpu_bytes == r.zero2[2]);
    CHECK(z2[1].gpu_bytes == r.zero2[3]);
    const auto z3 = deepspeed_zero3_rows(r.params, r.largest, r.gpus, r.nodes);
    REQUIRE(z3.size() == 6);
    for (std::size_t i = 0; i < 6; ++i) {
      CAPTURE(i);
      CHECK(z3[i].cpu_bytes == r.zero3[i][0]);
      CHECK(z3[i].gpu_bytes == r.zero3[i][1]);
    }
  }
}
