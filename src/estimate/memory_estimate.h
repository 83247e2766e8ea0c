// The whole estimate for one model and one training setup: per GPU (model
// states, buffers, activations, the CUDA context) and per node in host
// memory (steady, load, init, checkpoint save, resume), with DeepSpeed's
// own estimator beside it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/fact.h"
#include "estimate/activations.h"
#include "estimate/deepspeed_estimators.h"
#include "estimate/host_memory.h"
#include "estimate/model_shape.h"
#include "estimate/model_states.h"
#include "estimate/parameter_split.h"
#include "estimate/training_setup.h"

namespace ftdiag::estimate {

// The CUDA context, cuBLAS workspaces and kernels a process holds on each
// GPU before any tensor: typically 0.3-1 GB; assumed.
inline constexpr double kCudaContextBytes = 0.5e9;

struct GpuMemory {
  ModelStates states;
  Term optimizer_step;  // the fp32 gradients DeepSpeed makes while it steps (model_states.h)
  // Under torch AMP (amp_bf16) the bf16 copies autocast makes of the fp32
  // weights for the matrix products, kept for the backward: 2 B a weight.
  Term autocast_copies;
  Term buffers;
  std::optional<Activations> activations;  // none when the model's dimensions are unknown
  std::string activations_missing;         // why not
  Term cuda_context;
  Term total;  // states + step + autocast copies + buffers + activations (as chosen) + context

  double model_states() const { return states.total(); }
};

struct MemoryEstimate {
  ModelShape shape;
  TrainingSetup setup;
  ParameterSplit parameters;
  GpuMemory per_gpu;
  HostMemory per_node_host;
  // DeepSpeed's estimator for this stage (ZeRO-2 rows for stages 0-2,
  // ZeRO-3 rows for stage 3), with the row matching the setup's offload.
  std::vector<DeepSpeedEstimate> deepspeed_rows;
  std::optional<std::size_t> deepspeed_matching_row;
};

// Missing when the setup cannot be estimated (LoRA on a bare count, a stage
// out of range, no ranks).
Fact<MemoryEstimate> estimate_memory(const ModelShape& shape, const TrainingSetup& setup);

}  // namespace ftdiag::estimate
