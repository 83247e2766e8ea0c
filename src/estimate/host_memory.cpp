#include "estimate/host_memory.h"

#include <algorithm>

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

struct Quantities {
  double ranks_here = 0;   // N: ranks on this node
  double ranks = 0;        // N_d: ranks in all
  double nodes = 0;
  double weight_bytes = 0;  // b
  double trained = 0;       // Ψ_t
  double state_dict = 0;    // one whole state dict: b·Ψ_t + b_f·Ψ_f
  std::string state_dict_formula;
};

Quantities quantities(const ParameterSplit& parameters, const TrainingSetup& setup) {
  Quantities q;
  q.ranks_here = static_cast<double>(setup.gpus_per_node);
  q.ranks = static_cast<double>(setup.data_parallel_ranks());
  q.nodes = static_cast<double>(setup.nodes);
  q.weight_bytes = bytes_per_weight(setup.precision);
  q.trained = parameters.trainable;
  q.state_dict = q.weight_bytes * parameters.trainable + parameters.frozen_bytes_per_weight * parameters.frozen;
  q.state_dict_formula = parameters.frozen > 0
                             ? fmt::format("{} B x {} trained + {} B x {} frozen", q.weight_bytes,
                                           parameters_text(parameters.trainable), parameters.frozen_bytes_per_weight,
                                           parameters_text(parameters.frozen))
                             : fmt::format("{} B x {}", q.weight_bytes, parameters_text(parameters.total));
  return q;
}

// " / 4 nodes": this node's share of what all nodes hold; nothing on one node.
std::string per_node(const Quantities& q) { return q.nodes > 1 ? fmt::format(" / {} nodes", q.nodes) : std::string(); }

// What offload keeps in host memory all along: this node's share.
Term offloaded_states(const Quantities& q, const TrainingSetup& setup) {
  if (!setup.offload_optimizer && !setup.offload_param) return {"offloaded states", 0, "no offload"};
  std::vector<std::string> parts;
  double bytes = 0;
  if (setup.offload_optimizer) {
    // fp32 master (none when training in fp32: the weights are it), fp32
    // gradients, Adam's two moments; ZeRO-3 also a 16-bit gradient buffer.
    // ZeRO-1/2 (stage_1_and_2.py) also keep a copy of each partition in the
    // weights' dtype (param_buffer_of_bit16_for_cpu_offload_groups) and,
    // accumulating gradients over micro-batches, each partition's gradients
    // summed in the weights' dtype (accumulated_grads_in_cpu).
    const double master = q.weight_bytes < 4 ? 4 : 0;
    double per_parameter = master + 4 + 8 + (setup.zero_stage == 3 ? q.weight_bytes : 0);
    std::string what = "optimizer";
    if (setup.zero_stage < 3) {
      per_parameter += q.weight_bytes;
      what += ", partition copy";
      if (setup.gradient_accumulation_steps > 1) {
        per_parameter += q.weight_bytes;
        what += fmt::format(", gradients accumulated over {} micro-batches", setup.gradient_accumulation_steps);
      }
    }
    bytes += per_parameter * q.trained / q.nodes;
    parts.push_back(fmt::format("{} B x {} trained{} ({})", per_parameter, parameters_text(q.trained), per_node(q), what));
  }
  if (setup.offload_param && setup.zero_stage == 3) {
    bytes += q.state_dict / q.nodes;
    parts.push_back(fmt::format("({}){} (parameters)", q.state_dict_formula, per_node(q)));
  }
  return {"offloaded states", bytes, fmt::format("{}", fmt::join(parts, " + "))};
}

Term with_baseline(std::string name, const Term& baseline, const Term& offload, Term part) {
  Term total{std::move(name), baseline.bytes + offload.bytes + part.bytes, ""};
  total.formula = fmt::format("baseline {}", size_text(baseline.bytes));
  if (offload.bytes > 0) total.formula += fmt::format(" + offloaded states {} ({})", size_text(offload.bytes), offload.formula);
  if (part.bytes > 0) total.formula += fmt::format(" + {} {} ({})", part.name, size_text(part.bytes), part.formula);
  return total;
}

CheckpointSave checkpoint_save(const Quantities& q, const TrainingSetup& setup, const Term& baseline, const Term& offload) {
  CheckpointSave save;
  const double shard_copy = setup.shard_copy_on_save ? std::min(setup.max_shard_bytes, q.state_dict) : 0;
  const std::string shard_text =
      shard_copy > 0 ? fmt::format(" + rank 0's copy of one shard for safetensors {}", size_text(shard_copy)) : "";
  const double optimizer_partition = setup.offload_optimizer ? 0 : 4 * q.trained * q.ranks_here / (setup.zero_stage == 0 ? q.ranks_here : q.ranks);
  if (setup.zero_stage < 3) {
    save.phases.push_back({"every rank's copy of the state dict",
                           q.ranks_here * q.state_dict + shard_copy,
                           fmt::format("{} x ({}){}", ranks_text(q.ranks_here), q.state_dict_formula, shard_text)});
    save.phases.push_back({"DeepSpeed's model states on rank 0", q.weight_bytes * q.trained,
                           fmt::format("{} B x {} trained", q.weight_bytes, parameters_text(q.trained))});
    save.phases.push_back({"the optimizer partitions", optimizer_partition,
                           setup.offload_optimizer ? "written from host memory, no copy"
                                                   : fmt::format("4 B x {} trained / {} x {} here",
                                                                 parameters_text(q.trained), ranks_text(setup.zero_stage == 0 ? q.ranks_here : q.ranks),
                                                                 ranks_text(q.ranks_here))});
  } else {
    if (setup.gather_16bit_weights_on_save) {
      save.phases.push_back({"rank 0's gathered 16-bit model", q.state_dict + shard_copy,
                             fmt::format("({}) on rank 0 only{}", q.state_dict_formula, shard_text)});
    }
    const double per_rank = std::min(q.trained / q.ranks, setup.sub_group_size);
    save.phases.push_back({"the optimizer partitions", setup.offload_optimizer ? 0 : q.ranks_here * 4 * per_rank,
                           setup.offload_optimizer ? "written from host memory, no copy"
                                                   : fmt::format("{} here x 4 B x min({} trained / {}, sub-group {})",
                                                                 ranks_text(q.ranks_here), parameters_text(q.trained), ranks_text(q.ranks),
                                                                 parameters_text(setup.sub_group_size))});
  }
  const auto largest = std::max_element(save.phases.begin(), save.phases.end(),
                                        [](const Term& a, const Term& b) { return a.bytes < b.bytes; });
  save.largest_phase = largest->name;
  save.peak = with_baseline("checkpoint save", baseline, offload, *largest);
  return save;
}

}  // namespace

const Term& HostMemory::peak() const {
  const Term* most = &steady;
  for (const Term* t : {&init, &checkpoint_save.peak}) {
    if (t->bytes > most->bytes) most = t;
  }
  return *most;
}

HostMemory host_memory_per_node(const ParameterSplit& parameters, const TrainingSetup& setup, double per_rank_training_bytes) {
  const auto q = quantities(parameters, setup);
  HostMemory host;
  host.baseline = {"baseline", q.ranks_here * (setup.rank_baseline_bytes + per_rank_training_bytes),
                   fmt::format("{} x {} per rank ({})", ranks_text(q.ranks_here), size_text(setup.rank_baseline_bytes),
                               setup.rank_baseline_includes_states ? "measured, training states included"
                               : setup.rank_baseline_measured      ? "measured"
                                                                   : "assumed")};
  if (per_rank_training_bytes > 0) {
    host.baseline.formula = fmt::format("{} x ({} per rank ({}) + {} of model states, buffers and activations: CPU training)",
                                        ranks_text(q.ranks_here), size_text(setup.rank_baseline_bytes),
                                        setup.rank_baseline_measured ? "measured" : "assumed", size_text(per_rank_training_bytes));
  }
  const Term offload = offloaded_states(q, setup);
  const Term none{"", 0, ""};
  host.steady = with_baseline("steady", host.baseline, offload, none);

  const double shard = std::min(setup.max_shard_bytes, q.state_dict);
  host.model_load = setup.zero_stage < 3
                        ? with_baseline("model load", host.baseline, none,
                                        {"every rank's whole model", q.ranks_here * q.state_dict,
                                         fmt::format("{} x ({})", ranks_text(q.ranks_here), q.state_dict_formula)})
                        : with_baseline("model load", host.baseline, none,
                                        {"one shard mapped per rank", q.ranks_here * shard,
                                         fmt::format("{} x {}", ranks_text(q.ranks_here), size_text(shard))});

  if (setup.zero_stage == 0 || (setup.zero_stage < 3 && setup.flatten_on_gpu)) {
    host.init = with_baseline("DeepSpeed init", host.baseline, offload, none);
  } else if (setup.zero_stage < 3) {
    host.init = with_baseline("DeepSpeed init", host.baseline, offload,
                              {"flattening each rank's trained weights in host memory", q.ranks_here * 2 * q.weight_bytes * q.trained,
                               fmt::format("{} x 2 x {} B x {} trained", ranks_text(q.ranks_here), q.weight_bytes, parameters_text(q.trained))});
  } else {
    host.init = with_baseline("DeepSpeed init", host.baseline, offload,
                              {"defragmenting the partitions", q.state_dict / q.nodes,
                               fmt::format("({}){}", q.state_dict_formula, per_node(q))});
  }

  host.checkpoint_save = checkpoint_save(q, setup, host.baseline, offload);

  const double optimizer_files = 12 * q.trained * q.ranks_here / q.ranks;
  const Term optimizer_load{"each rank's optimizer partition", optimizer_files,
                            fmt::format("12 B x {} trained x {} here / {}, every rank's file loaded to host memory at once "
                                        "(an upper bound: DeepSpeed's load_checkpoint maps each to the CPU)",
                                        parameters_text(q.trained), ranks_text(q.ranks_here), ranks_text(q.ranks))};
  if (setup.zero_stage < 3) {
    host.resume = with_baseline("resume", host.baseline, offload,
                                {"every rank's model states and optimizer partition", q.ranks_here * q.state_dict + optimizer_files,
                                 fmt::format("{} x ({}) + {}", ranks_text(q.ranks_here), q.state_dict_formula, optimizer_load.formula)});
  } else {
    host.resume = with_baseline("resume", host.baseline, offload, optimizer_load);
  }
  return host;
}

}  // namespace ftdiag::estimate
