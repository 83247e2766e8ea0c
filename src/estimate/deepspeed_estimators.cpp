#include "estimate/deepspeed_estimators.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

// Python's int() of a float: truncation toward zero.
std::int64_t python_int(double value) { return static_cast<std::int64_t>(std::trunc(value)); }

// f'{OffloadDeviceEnum.cpu:4}' pads "cpu" to four characters.
constexpr const char* kCpu = "cpu ";

}  // namespace

DeepSpeedEstimate deepspeed_zero2_estimate(double total_params, std::int64_t gpus_per_node, std::int64_t nodes,
                                           bool cpu_offload, double additional_buffer_factor, Zero2Formula formula) {
  const auto total_gpus = static_cast<double>(nodes * gpus_per_node);
  DeepSpeedEstimate out;
  // The arithmetic keeps DeepSpeed's order of operations, so the float
  // rounding (and Python's truncation) is the same.
  if (cpu_offload) {
    out.gpu_bytes = python_int(2 * total_params);
    out.cpu_bytes = python_int(total_params * std::max(4 * total_gpus, 16.0) * additional_buffer_factor);
    out.options = fmt::format("offload_optimizer={}", kCpu);
  } else {
    if (formula == Zero2Formula::current) {
      out.gpu_bytes = python_int(2 * total_params + static_cast<double>(python_int(18 * total_params / total_gpus)));
    } else {
      out.gpu_bytes = python_int(4 * total_params + static_cast<double>(python_int(16 * total_params / total_gpus)));
    }
    out.cpu_bytes = python_int(total_params * 4 * static_cast<double>(gpus_per_node) * additional_buffer_factor);
    out.options = "offload_optimizer=none";
  }
  return out;
}

DeepSpeedEstimate deepspeed_zero3_estimate(double total_params, double largest_layer_params, std::int64_t gpus_per_node,
                                           std::int64_t nodes, bool cpu_offload, bool cpu_offload_params, bool zero_init,
                                           double additional_buffer_factor) {
  const auto total_gpus = static_cast<double>(nodes * gpus_per_node);
  const double gpus_factor = 1.0 / static_cast<double>(nodes);
  const double per_node = static_cast<double>(gpus_per_node);
  const double largest_layer_memory = 4 * largest_layer_params;
  double gpu = 0;
  double cpu = 0;
  if (cpu_offload) {
    if (cpu_offload_params) {
      gpu = largest_layer_memory;
      cpu = zero_init ? total_params * 18 * gpus_factor * additional_buffer_factor
                      : total_params * std::max(4 * per_node, 18 * gpus_factor) * additional_buffer_factor;
    } else {
      gpu = largest_layer_memory + static_cast<double>(python_int(2 * total_params / total_gpus));
      cpu = zero_init ? total_params * 16 * gpus_factor * additional_buffer_factor
                      : total_params * std::max(4 * per_node, 16 * gpus_factor) * additional_buffer_factor;
    }
  } else {
    gpu = largest_layer_memory + static_cast<double>(python_int(18 * total_params / total_gpus));
    cpu = zero_init ? largest_layer_params * 4 * per_node * additional_buffer_factor
                    : total_params * 4 * per_node * additional_buffer_factor;
  }
  DeepSpeedEstimate out{python_int(cpu), python_int(gpu), ""};
  out.options = fmt::format("offload_param={}, offload_optimizer={}, zero_init={}", cpu_offload_params ? kCpu : "none",
                            cpu_offload ? kCpu : "none", zero_init ? 1 : 0);
  return out;
}

std::vector<DeepSpeedEstimate> deepspeed_zero2_rows(double total_params, std::int64_t gpus_per_node, std::int64_t nodes,
                                                    Zero2Formula formula) {
  return {deepspeed_zero2_estimate(total_params, gpus_per_node, nodes, true, 1.5, formula),
          deepspeed_zero2_estimate(total_params, gpus_per_node, nodes, false, 1.5, formula)};
}

std::vector<DeepSpeedEstimate> deepspeed_zero3_rows(double total_params, double largest_layer_params,
                                                    std::int64_t gpus_per_node, std::int64_t nodes) {
  std::vector<DeepSpeedEstimate> rows;
  for (bool cpu_offload : {true, false}) {
    for (bool cpu_offload_params : {true, false}) {
      if (!cpu_offload && cpu_offload_params) continue;
      for (bool zero_init : {true, false}) {
        rows.push_back(deepspeed_zero3_estimate(total_params, largest_layer_params, gpus_per_node, nodes, cpu_offload,
                                                cpu_offload_params, zero_init));
      }
    }
  }
  return rows;
}

std::string deepspeed_formula_text(const TrainingSetup& setup) {
  if (setup.zero_stage == 3) return "4L + 18Ψ/N per GPU without offload";
  return setup.deepspeed_estimator_before_0_14_3 ? "DeepSpeed before 0.14.3: 4Ψ + 16Ψ/N per GPU without offload"
                                                 : "DeepSpeed 0.14.3 and later: 2Ψ + 18Ψ/N per GPU without offload";
}

std::string deepspeed_row_text(const DeepSpeedEstimate& row) {
  const double gib = std::pow(2.0, 30);
  return fmt::format(" {:7.2f}GB | {:6.2f}GB | {}", static_cast<double>(row.cpu_bytes) / gib,
                     static_cast<double>(row.gpu_bytes) / gib, row.options);
}

}  // namespace ftdiag::estimate
