#include "report/estimate_json.h"

#include <cmath>

namespace ftdiag::report {

namespace {

using nlohmann::json;
using namespace ftdiag::estimate;

std::int64_t whole(double bytes) { return static_cast<std::int64_t>(std::llround(bytes)); }

json term_json(const Term& term) { return {{"name", term.name}, {"bytes", whole(term.bytes)}, {"formula", term.formula}}; }

json model_json(const MemoryEstimate& e) {
  const auto& shape = e.shape;
  json model{{"parameters", shape.parameters},
             {"trainable_parameters", whole(e.parameters.trainable)},
             {"frozen_parameters", whole(e.parameters.frozen)},
             {"trainable_formula", e.parameters.trainable_formula},
             {"largest_layer_parameters", shape.largest_layer_parameters},
             {"source", shape.source},
             {"architecture", shape.architecture.empty() ? json(nullptr) : json(shape.architecture)}};
  if (shape.has_dimensions()) {
    model["dimensions"] = {{"hidden", shape.hidden},         {"layers", shape.layers},   {"heads", shape.heads},
                           {"kv_heads", shape.kv_heads},     {"head_dim", shape.head_dim}, {"intermediate", shape.intermediate},
                           {"vocab", shape.vocab},           {"experts", shape.experts}, {"experts_per_token", shape.experts_per_token},
                           {"gated_mlp", shape.gated_mlp},   {"tied_embeddings", shape.tied_embeddings},
                           {"dropout", shape.dropout}};
    model["dimensions_assumed_from"] = shape.assumed_from.empty() ? json(nullptr) : json(shape.assumed_from);
  }
  return model;
}

json setup_json(const TrainingSetup& s) {
  return {{"zero_stage", s.zero_stage},
          {"offload_optimizer", s.offload_optimizer},
          {"offload_param", s.offload_param},
          {"gpus_per_node", s.gpus_per_node},
          {"nodes", s.nodes},
          {"finetune", std::string(to_string(s.finetune))},
          {"lora_rank", s.finetune == Finetune::full ? json(nullptr) : json(s.lora_rank)},
          {"precision", std::string(to_string(s.precision))},
          {"micro_batch", s.micro_batch},
          {"sequence_length", s.sequence_length},
          {"gradient_checkpointing", s.gradient_checkpointing},
          {"selective_recompute", s.selective_recompute},
          {"dropout", s.dropout},
          {"tensor_parallel", s.tensor_parallel},
          {"sequence_parallel", s.sequence_parallel},
          {"attention", s.attention == Attention::eager ? "eager" : "flash"},
          {"gather_16bit_weights_on_save", s.gather_16bit_weights_on_save},
          {"rank_baseline_bytes", whole(s.rank_baseline_bytes)},
          {"rank_baseline_measured", s.rank_baseline_measured},
          {"device", s.train_on_cpu ? "cpu" : "gpu"}};
}

json per_gpu_json(const MemoryEstimate& e) {
  const auto& g = e.per_gpu;
  json out{{"weights_bytes", whole(g.states.weights.bytes)},
           {"gradients_bytes", whole(g.states.gradients.bytes)},
           {"optimizer_states_bytes", whole(g.states.optimizer_states.bytes)},
           {"model_states_bytes", whole(g.model_states())},
           {"optimizer_step_bytes", whole(g.optimizer_step.bytes)},
           {"autocast_copies_bytes", whole(g.autocast_copies.bytes)},
           {"buffers_bytes", whole(g.buffers.bytes)},
           {"cuda_context_bytes", whole(g.cuda_context.bytes)},
           {"total_bytes", whole(g.total.bytes)},
           {"total_formula", g.total.formula}};
  json terms = json::array({term_json(g.states.weights), term_json(g.states.gradients), term_json(g.states.optimizer_states),
                            term_json(g.optimizer_step), term_json(g.autocast_copies), term_json(g.buffers)});
  if (g.activations) {
    const auto& chosen = g.activations->chosen(e.setup);
    out["activations_bytes"] = whole(chosen.bytes);
    out["activations_without_checkpointing_bytes"] = whole(g.activations->without_checkpointing.bytes);
    out["activations_with_checkpointing_bytes"] = whole(g.activations->with_checkpointing.bytes);
    terms.push_back(term_json(chosen));
  } else {
    // Unknown, not zero: total_bytes then leaves activations out, and says so.
    out["activations_bytes"] = nullptr;
    out["activations_missing"] = g.activations_missing;
  }
  terms.push_back(term_json(g.cuda_context));
  out["terms"] = std::move(terms);
  return out;
}

json host_json(const HostMemory& h) {
  json phases = json::array();
  for (const auto& phase : h.checkpoint_save.phases) phases.push_back(term_json(phase));
  return {{"baseline_bytes", whole(h.baseline.bytes)},
          {"steady_bytes", whole(h.steady.bytes)},
          {"model_load_bytes", whole(h.model_load.bytes)},
          {"init_bytes", whole(h.init.bytes)},
          {"checkpoint_save_peak_bytes", whole(h.checkpoint_save.peak.bytes)},
          {"checkpoint_save_largest_phase", h.checkpoint_save.largest_phase},
          {"checkpoint_save_phases", std::move(phases)},
          {"resume_bytes", whole(h.resume.bytes)},
          {"peak_bytes", whole(h.peak().bytes)},
          {"peak_when", h.peak().name},
          {"terms", json::array({term_json(h.baseline), term_json(h.steady), term_json(h.model_load), term_json(h.init),
                                 term_json(h.checkpoint_save.peak), term_json(h.resume)})}};
}

json deepspeed_json(const MemoryEstimate& e) {
  json rows = json::array();
  for (std::size_t i = 0; i < e.deepspeed_rows.size(); ++i) {
    const auto& row = e.deepspeed_rows[i];
    rows.push_back({{"cpu_bytes", row.cpu_bytes},
                    {"gpu_bytes", row.gpu_bytes},
                    {"options", row.options},
                    {"matches_setup", e.deepspeed_matching_row == i}});
  }
  return {{"function", e.setup.zero_stage < 3 ? "estimate_zero2_model_states_mem_needs" : "estimate_zero3_model_states_mem_needs"},
          {"formula", deepspeed_formula_text(e.setup)},
          {"rows", std::move(rows)}};
}

json optional_bool(const std::optional<bool>& value) { return value ? json(*value) : json(nullptr); }

json advice_json(const Advice& advice) {
  json options = json::array();
  for (const auto& o : advice.options) {
    options.push_back({{"name", o.name},
                       {"zero_stage", o.setup.zero_stage},
                       {"offload_optimizer", o.setup.offload_optimizer},
                       {"offload_param", o.setup.offload_param},
                       {"finetune", std::string(to_string(o.setup.finetune))},
                       {"per_gpu_bytes", whole(o.per_gpu_bytes)},
                       {"host_save_peak_bytes", whole(o.host_save_peak_bytes)},
                       {"host_peak_bytes", whole(o.host_peak_bytes)},
                       {"host_peak_when", o.host_peak_when},
                       {"fits_gpu", optional_bool(o.fits_gpu)},
                       {"fits_host", optional_bool(o.fits_host)},
                       {"tight", o.tight}});
  }
  json out{{"reasons", advice.reasons}, {"options", std::move(options)}};
  if (advice.chosen) {
    const auto& c = advice.options[*advice.chosen];
    out["zero_stage"] = c.setup.zero_stage;
    out["offload_optimizer"] = c.setup.offload_optimizer;
    out["offload_param"] = c.setup.offload_param;
    out["finetune"] = std::string(to_string(c.setup.finetune));
    out["option"] = c.name;
  } else {
    out["zero_stage"] = nullptr;
    out["option"] = nullptr;
  }
  out["ranks_per_node_that_fit_zero2"] =
      advice.zero2_ranks_per_node_that_fit ? json(*advice.zero2_ranks_per_node_that_fit) : json(nullptr);
  return out;
}

}  // namespace

json estimate_to_json(const MemoryEstimate& estimate, const Resources& resources, const Advice& advice) {
  json res{{"gpu_memory_bytes", resources.gpu_memory_bytes ? json(whole(*resources.gpu_memory_bytes)) : json(nullptr)},
           {"host_memory_bytes", resources.host_memory_bytes ? json(whole(*resources.host_memory_bytes)) : json(nullptr)},
           {"host_memory_source", resources.host_memory_source}};
  return {{"schema_version", kEstimateSchemaVersion},
          {"model", model_json(estimate)},
          {"setup", setup_json(estimate.setup)},
          {"per_gpu", per_gpu_json(estimate)},
          {"per_node_host", host_json(estimate.per_node_host)},
          {"deepspeed_estimator", deepspeed_json(estimate)},
          {"resources", std::move(res)},
          {"advice", advice_json(advice)}};
}

}  // namespace ftdiag::report
