// DeepSpeed's own memory estimators, reproduced to the byte:
// estimate_zero2_model_states_mem_needs (deepspeed/runtime/zero/
// stage_1_and_2.py) and estimate_zero3_model_states_mem_needs
// (deepspeed/runtime/zero/stage3.py), with the rows their _all_cold
// variants print. They budget steady model states only (no activations, no
// checkpoint-save copies) and count every parameter as trained (LoRA's
// frozen base too: DeepSpeed#5304); ftdiag shows them beside its own figures.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "estimate/training_setup.h"

namespace ftdiag::estimate {

struct DeepSpeedEstimate {
  std::int64_t cpu_bytes = 0;  // "per CPU": host memory of a node
  std::int64_t gpu_bytes = 0;  // "per GPU"
  std::string options;         // as DeepSpeed prints them: "offload_optimizer=cpu "

  bool operator==(const DeepSpeedEstimate&) const = default;
};

// Before DeepSpeed 0.14.3 (PR #5099) ZeRO-2 without offload was budgeted
// 4Ψ + 16Ψ/N per GPU; since, 2Ψ + 18Ψ/N.
enum class Zero2Formula { current, before_0_14_3 };

DeepSpeedEstimate deepspeed_zero2_estimate(double total_params, std::int64_t gpus_per_node, std::int64_t nodes,
                                           bool cpu_offload, double additional_buffer_factor = 1.5,
                                           Zero2Formula formula = Zero2Formula::current);

DeepSpeedEstimate deepspeed_zero3_estimate(double total_params, double largest_layer_params, std::int64_t gpus_per_node,
                                           std::int64_t nodes, bool cpu_offload, bool cpu_offload_params, bool zero_init,
                                           double additional_buffer_factor = 1.5);

// The rows estimate_zero{2,3}_model_states_mem_needs_all_cold prints, in
// its order (ZeRO-2: offload cpu, none; ZeRO-3: the six combinations).
std::vector<DeepSpeedEstimate> deepspeed_zero2_rows(double total_params, std::int64_t gpus_per_node, std::int64_t nodes,
                                                    Zero2Formula formula = Zero2Formula::current);
std::vector<DeepSpeedEstimate> deepspeed_zero3_rows(double total_params, double largest_layer_params,
                                                    std::int64_t gpus_per_node, std::int64_t nodes);

// Which of DeepSpeed's formulas the rows for this setup follow, as the
// output names it: "since 0.14.3: 2Ψ + 18Ψ/N per GPU".
std::string deepspeed_formula_text(const TrainingSetup& setup);

// One row as DeepSpeed prints it: "  127.45GB |  15.93GB | offload_optimizer=none"
// (its "GB" are GiB).
std::string deepspeed_row_text(const DeepSpeedEstimate& row);

}  // namespace ftdiag::estimate
