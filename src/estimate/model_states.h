// Per-GPU memory of the model states (weights, gradients, optimizer states)
// under ZeRO stages 0-3 and offload, as in Rajbhandari et al., "ZeRO:
// Memory Optimizations Toward Training Trillion Parameter Models" (SC'20),
// §5 and Fig. 1: mixed-precision Adam keeps 2Ψ of 16-bit weights, 2Ψ of
// 16-bit gradients and KΨ (K = 12: fp32 weights, momentum, variance) of
// optimizer states; stage 1 partitions the optimizer states over N_d ranks,
// stage 2 the gradients too, stage 3 the weights too.
//
// Only trained parameters have gradients and optimizer states; frozen ones
// (LoRA's base) are weights only, partitioned by stage 3 alone.
#pragma once

#include <vector>

#include "estimate/parameter_split.h"
#include "estimate/term.h"
#include "estimate/training_setup.h"

namespace ftdiag::estimate {

// Bytes of optimizer state per trained parameter: Adam in mixed precision
// keeps an fp32 master copy besides its two moments (12); in fp32 and under
// AMP the weights are the master copy (8); pure bf16 keeps bf16 moments (4).
double adam_bytes_per_parameter(Precision precision);

struct ModelStates {
  Term weights;
  Term gradients;
  Term optimizer_states;

  double total() const { return weights.bytes + gradients.bytes + optimizer_states.bytes; }
};

ModelStates model_states_per_gpu(const ParameterSplit& parameters, const TrainingSetup& setup);

// What DeepSpeed's ZeRO optimizer adds on each GPU while it steps: the
// 16-bit gradient partition is copied into an fp32 tensor for the fp32
// master weights (stage_1_and_2.py step(): single_grad_partition, 4 B per
// trained parameter of the rank's partition, one parameter group at a time;
// stage3.py _prepare_fp32_grad_for_sub_group: one sub-group at a time). The
// ZeRO paper's model states leave it out; DeepSpeed's estimator since 0.14.3
// counts it (2Ψ + 18Ψ/N for ZeRO-2). None with the optimizer offloaded (the
// step runs on the CPU) or without ZeRO.
Term optimizer_step_per_gpu(const ParameterSplit& parameters, const TrainingSetup& setup);

// What else DeepSpeed holds on each GPU beside the states: its reduce and
// all-gather buckets (stages 1-2), the largest layer gathered whole and the
// reduce bucket (stage 3; DeepSpeed's own estimator counts 4 bytes per
// parameter of the largest layer).
Term zero_buffers_per_gpu(double largest_layer_parameters, const TrainingSetup& setup);

}  // namespace ftdiag::estimate
