#include "estimate/memory_estimate.h"

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

std::optional<Missing> invalid(const ModelShape& shape, const TrainingSetup& setup) {
  if (shape.parameters == 0) return Missing{MissingReason::not_present, "the model's parameter count is not known"};
  if (setup.zero_stage < 0 || setup.zero_stage > 3) {
    return Missing{MissingReason::unparseable, fmt::format("ZeRO stage {} does not exist (0-3)", setup.zero_stage)};
  }
  if (setup.gpus_per_node == 0 || setup.nodes == 0) {
    return Missing{MissingReason::unparseable, "at least one GPU on one node is needed"};
  }
  if (setup.offload_param && setup.zero_stage != 3) {
    return Missing{MissingReason::unparseable, "offloading parameters needs ZeRO-3"};
  }
  if (setup.tensor_parallel == 0 || (setup.gpus_per_node * setup.nodes) % setup.tensor_parallel != 0) {
    return Missing{MissingReason::unparseable,
                   fmt::format("tensor parallelism over {} GPUs needs a multiple of {} GPUs in all ({} here)", setup.tensor_parallel,
                               setup.tensor_parallel, setup.gpus_per_node * setup.nodes)};
  }
  if (setup.sequence_parallel && setup.tensor_parallel < 2) {
    return Missing{MissingReason::unparseable, "sequence parallelism splits over the tensor-parallel GPUs: it needs a degree of 2 or more"};
  }
  if (setup.micro_batch == 0 || setup.sequence_length == 0) {
    return Missing{MissingReason::unparseable, "the micro-batch and the sequence length must be at least 1"};
  }
  return std::nullopt;
}

void add_deepspeed_rows(MemoryEstimate& estimate) {
  const auto& setup = estimate.setup;
  if (setup.tensor_parallel > 1) return;  // DeepSpeed's estimator knows no tensor parallelism
  const auto per_node = static_cast<std::int64_t>(setup.gpus_per_node);
  const auto nodes = static_cast<std::int64_t>(setup.nodes);
  // DeepSpeed counts every parameter as trained, frozen ones too.
  const double total = estimate.parameters.total;
  if (setup.zero_stage < 3) {
    estimate.deepspeed_rows = deepspeed_zero2_rows(
        total, per_node, nodes, setup.deepspeed_estimator_before_0_14_3 ? Zero2Formula::before_0_14_3 : Zero2Formula::current);
    // The ZeRO-2 estimator's rows are this setup only under ZeRO-2: shown
    // beside ZeRO-0 and ZeRO-1 for reference, none marked.
    if (setup.zero_stage == 2) estimate.deepspeed_matching_row = setup.offload_optimizer ? 0 : 1;
    return;
  }
  estimate.deepspeed_rows =
      deepspeed_zero3_rows(total, static_cast<double>(estimate.shape.largest_layer_parameters), per_node, nodes);
  // Rows: (opt+param, init 1), (opt+param, 0), (opt, 1), (opt, 0), (none, 1), (none, 0); zero_init is how
  // Trainer-built ZeRO-3 models start.
  if (setup.offload_optimizer && setup.offload_param) {
    estimate.deepspeed_matching_row = 0;
  } else if (setup.offload_optimizer) {
    estimate.deepspeed_matching_row = 2;
  } else if (!setup.offload_param) {
    estimate.deepspeed_matching_row = 4;
  }
}

}  // namespace

Fact<MemoryEstimate> estimate_memory(const ModelShape& shape, const TrainingSetup& setup) {
  if (auto why = invalid(shape, setup)) return *why;
  auto parameters = split_parameters(shape, setup);
  if (!parameters) return parameters.missing();

  MemoryEstimate estimate;
  estimate.shape = shape;
  estimate.setup = setup;
  estimate.parameters = parameters.value();

  // Under tensor parallelism each GPU holds 1/t of every layer (the
  // embedding and head split over the vocabulary): its share is what ZeRO
  // partitions further and what each rank copies at a save.
  const double tp = static_cast<double>(setup.tensor_parallel);
  ParameterSplit share = estimate.parameters;
  share.total /= tp;
  share.trainable /= tp;
  share.frozen /= tp;

  auto& gpu = estimate.per_gpu;
  gpu.states = model_states_per_gpu(share, setup);
  gpu.optimizer_step = optimizer_step_per_gpu(share, setup);
  if (setup.precision == Precision::amp_bf16) {
    const double on_gpu = setup.zero_stage == 3 ? share.total / static_cast<double>(setup.data_parallel_ranks()) : share.total;
    gpu.autocast_copies = {"autocast copies", 2 * on_gpu,
                           fmt::format("bf16 copies of the fp32 weights for the backward: 2 B x {}", parameters_text(on_gpu))};
  } else {
    gpu.autocast_copies = {"autocast copies", 0, "none: the weights are kept in the precision they compute in"};
  }
  gpu.buffers = zero_buffers_per_gpu(static_cast<double>(shape.largest_layer_parameters) / tp, setup);
  gpu.cuda_context = setup.train_on_cpu ? Term{"CUDA context", 0, "none: the ranks train on the CPU"}
                                         : Term{"CUDA context", kCudaContextBytes, "CUDA context, cuBLAS workspace and kernels (assumed)"};
  auto activations = activations_per_gpu(shape, setup);
  double activation_bytes = 0;
  if (activations) {
    gpu.activations = activations.value();
    activation_bytes = gpu.activations->chosen(setup).bytes;
  } else {
    gpu.activations_missing = activations.missing().detail;
  }
  gpu.total = {"per GPU",
               gpu.model_states() + gpu.optimizer_step.bytes + gpu.autocast_copies.bytes + gpu.buffers.bytes + activation_bytes +
                   gpu.cuda_context.bytes,
               fmt::format("model states {} + optimizer step {} + autocast copies {} + buffers {} + activations {} + CUDA context {}",
                           size_text(gpu.model_states()), size_text(gpu.optimizer_step.bytes),
                           size_text(gpu.autocast_copies.bytes), size_text(gpu.buffers.bytes), activations ? size_text(activation_bytes) : std::string("unknown"),
                           size_text(gpu.cuda_context.bytes))};

  // A CPU rank holds in host memory what a GPU rank holds on its GPU
  // between steps: its model states and buffers. The activations and the
  // optimizer step's partition live only within a step, and a save (or a
  // load) comes between steps.
  const bool states_in_host = setup.train_on_cpu && !setup.rank_baseline_includes_states;
  const double between_steps = gpu.model_states() + gpu.autocast_copies.bytes + gpu.buffers.bytes;
  estimate.per_node_host = host_memory_per_node(share, setup, states_in_host ? between_steps : 0);
  add_deepspeed_rows(estimate);
  return estimate;
}

}  // namespace ftdiag::estimate
