#include "estimate/model_states.h"

#include <fmt/format.h>

namespace ftdiag::estimate {

double adam_bytes_per_parameter(Precision precision) {
  switch (precision) {
    case Precision::fp32:
    case Precision::amp_bf16: return 8;  // the fp32 weights are the master copy
    case Precision::pure_bf16: return 4;  // two bf16 moments, no master copy
    case Precision::bf16:
    case Precision::fp16: return 12;
  }
  return 12;
}

ModelStates model_states_per_gpu(const ParameterSplit& parameters, const TrainingSetup& setup) {
  const double ranks = static_cast<double>(setup.data_parallel_ranks());
  const double weight_bytes = bytes_per_weight(setup.precision);
  const double gradient_bytes = weight_bytes;
  const double optimizer_bytes = adam_bytes_per_parameter(setup.precision);
  const double trained = parameters.trainable;
  const double frozen = parameters.frozen;
  const int stage = setup.zero_stage;
  ModelStates states;

  // Weights: whole on every GPU below stage 3; stage 3 keeps a 1/N_d
  // partition, or none with the parameters offloaded to host memory.
  const double whole_weights = weight_bytes * trained + parameters.frozen_bytes_per_weight * frozen;
  const std::string weights_formula =
      frozen > 0 ? fmt::format("{} B x {} trained + {} B x {} frozen", weight_bytes, parameters_text(trained),
                               parameters.frozen_bytes_per_weight, parameters_text(frozen))
                 : fmt::format("{} B x {}", weight_bytes, parameters_text(trained));
  if (stage == 3 && setup.offload_param) {
    states.weights = {"weights", 0, "offloaded to host memory (offload_param)"};
  } else if (stage == 3) {
    states.weights = {"weights", whole_weights / ranks, fmt::format("({}) / {}", weights_formula, ranks_text(ranks))};
  } else {
    states.weights = {"weights", whole_weights, weights_formula};
  }

  // Gradients: partitioned from stage 2; with the optimizer offloaded they
  // are reduced straight into host buffers.
  if (setup.offload_optimizer && stage >= 1) {
    states.gradients = {"gradients", 0, "reduced into host memory (offload_optimizer)"};
  } else if (stage >= 2) {
    states.gradients = {"gradients", gradient_bytes * trained / ranks,
                        fmt::format("{} B x {} / {}", gradient_bytes, parameters_text(trained), ranks_text(ranks))};
  } else {
    states.gradients = {"gradients", gradient_bytes * trained, fmt::format("{} B x {}", gradient_bytes, parameters_text(trained))};
  }

  // Optimizer states: partitioned from stage 1.
  if (setup.offload_optimizer && stage >= 1) {
    states.optimizer_states = {"optimizer states", 0, "in host memory (offload_optimizer)"};
  } else if (stage >= 1) {
    states.optimizer_states = {"optimizer states", optimizer_bytes * trained / ranks,
                               fmt::format("{} B x {} / {}", optimizer_bytes, parameters_text(trained), ranks_text(ranks))};
  } else {
    states.optimizer_states = {"optimizer states", optimizer_bytes * trained,
                               fmt::format("{} B x {}", optimizer_bytes, parameters_text(trained))};
  }
  return states;
}

Term optimizer_step_per_gpu(const ParameterSplit& parameters, const TrainingSetup& setup) {
  const std::string name = "optimizer step";
  if (setup.zero_stage == 0) return {name, 0, "none beyond the model states without ZeRO"};
  if (setup.offload_optimizer) return {name, 0, "none: the step runs in host memory (offload_optimizer)"};
  const double ranks = static_cast<double>(setup.data_parallel_ranks());
  const double partition = parameters.trainable / ranks;
  if (setup.zero_stage == 3 && partition > setup.sub_group_size) {
    return {name, 4 * setup.sub_group_size,
            fmt::format("fp32 gradients of one sub-group: 4 B x {} (sub_group_size)", parameters_text(setup.sub_group_size))};
  }
  return {name, 4 * partition,
          fmt::format("fp32 gradient partition: 4 B x {} / {}", parameters_text(parameters.trainable), ranks_text(ranks))};
}

Term zero_buffers_per_gpu(double largest_layer_parameters, const TrainingSetup& setup) {
  const double weight_bytes = bytes_per_weight(setup.precision);
  if (setup.train_on_cpu) return {"buffers", 0, "none: CPU ranks reduce over gloo without DeepSpeed's GPU buckets"};
  if (setup.zero_stage == 0) return {"buffers", 0, "none beyond the gradients (DDP buckets are views of them)"};
  if (setup.zero_stage < 3) {
    return {"buffers", weight_bytes * (setup.reduce_bucket_size + setup.allgather_bucket_size),
            fmt::format("{} B x (reduce bucket {} + all-gather bucket {})", weight_bytes,
                        parameters_text(setup.reduce_bucket_size), parameters_text(setup.allgather_bucket_size))};
  }
  return {"buffers", 4 * largest_layer_parameters + weight_bytes * setup.reduce_bucket_size,
          fmt::format("4 B x the largest layer ({}) + {} B x reduce bucket {}", parameters_text(largest_layer_parameters),
                      weight_bytes, parameters_text(setup.reduce_bucket_size))};
}

}  // namespace ftdiag::estimate
