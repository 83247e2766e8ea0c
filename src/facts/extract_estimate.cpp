// What the memory model (src/estimate/) predicts for the job its configs
// describe: the checkpoint-save peak and the other host-memory figures per
// node, the model states per GPU, and how they compare with the memory the
// node has. The rules put these beside what was observed (an OOM kill at a
// save) or warn before training (preflight).
//
// The model's size comes from the weights' headers, else config.json, else
// the count its name states; the setup from the config facts (ZeRO stage,
// offload, precision, what is trained, ranks per node). Without a model size
// and a ZeRO stage nothing is predicted.
#include <algorithm>

#include <fmt/format.h>

#include "estimate/advisor.h"
#include "facts/estimate_facts.h"
#include "facts/estimate_inputs.h"
#include "facts/extract.h"

namespace ftdiag::facts {

namespace {

using evidence::EvidenceDocument;


// The memory the node gives the job: its RAM, or its cgroup's limit when lower.
std::optional<std::pair<double, std::string>> host_capacity(const FactSet& facts, std::string& pointer) {
  std::optional<std::pair<double, std::string>> best;
  for (const auto& [name, what] : {std::pair{"cgroup.limit_bytes", "the job's cgroup limit"},
                                   std::pair{"host.cgroup_limit_bytes", "the cgroup limit"},
                                   std::pair{"node.mem_total_bytes", "the node's RAM"},
                                   std::pair{"host.mem_total_bytes", "the node's RAM"}}) {
    auto bytes = facts.value_of<std::int64_t>(name);
    if (!bytes || *bytes <= 0) continue;
    if (!best || static_cast<double>(*bytes) < best->first) {
      best = std::pair{static_cast<double>(*bytes), std::string(what)};
      pointer = facts.get(name).pointer;
    }
  }
  return best;
}

}  // namespace

void extract_estimate_facts(const EvidenceDocument& document, const std::optional<Incident>&, FactSet& facts) {
  // Without a ZeRO stage the configs do not describe a DeepSpeed setup to
  // predict; one DeepSpeed would refuse is said as the reason.
  const auto& stage = facts.get("config.zero_stage").value;
  if (!stage) {
    if (stage.missing().reason == MissingReason::unparseable) facts.set_missing("estimate.save_peak_bytes", stage.missing());
    return;
  }
  estimate::TrainingSetup defaults;
  auto setup = std::optional<estimate::TrainingSetup>(setup_from_facts(facts, defaults));
  auto model = model_from_evidence(document, facts);
  if (!model) {
    if (model.missing().reason != MissingReason::not_present) facts.set_missing("estimate.save_peak_bytes", model.missing());
    return;
  }
  const std::string setup_pointer = facts.get("config.zero_stage").pointer;
  // A rank's baseline, measured when ftdiag watched the job: what the job
  // held as the save began (else once start-up was over), per rank. On GPUs
  // that is host memory besides the model's states; on CPU ranks it holds
  // the states too. The save's own copies are then the only prediction.
  const char* measured_by = "memory.before_phase_at_death_bytes";
  auto level = facts.value_of<std::int64_t>(measured_by);
  const bool at_save = facts.value_of<std::string>("phase.at_death") == "checkpoint-save";
  if (!level || !at_save) {
    measured_by = "memory.after_startup_bytes";
    level = facts.value_of<std::int64_t>(measured_by);
  }
  if (level && *level > 0) {
    setup->rank_baseline_bytes = static_cast<double>(*level) / static_cast<double>(setup->gpus_per_node);
    setup->rank_baseline_measured = true;
    setup->rank_baseline_includes_states = setup->train_on_cpu;
  }
  const std::string baseline_pointer = setup->rank_baseline_measured ? facts.get(measured_by).pointer : setup_pointer;
  set_estimate_facts(model.value(), *setup, setup_pointer, baseline_pointer, facts);
}

void set_estimate_facts(const ModelFromEvidence& model, const estimate::TrainingSetup& setup, const std::string& setup_pointer,
                        const std::string& baseline_pointer, FactSet& facts) {
  auto estimated = estimate::estimate_memory(model.shape, setup);
  if (!estimated) {
    facts.set_missing("estimate.save_peak_bytes", estimated.missing());
    return;
  }
  const auto& e = estimated.value();
  const auto& host = e.per_node_host;
  auto as_int = [](double bytes) { return static_cast<std::int64_t>(bytes); };

  facts.set("estimate.parameters", static_cast<std::int64_t>(model.shape.parameters), model.pointer);
  facts.set("estimate.rank_baseline_bytes", as_int(setup.rank_baseline_bytes), baseline_pointer);
  facts.set("estimate.rank_baseline_measured", setup.rank_baseline_measured, baseline_pointer);
  facts.set("estimate.parameters_source", model.source, model.pointer);
  facts.set("estimate.trainable_parameters", as_int(e.parameters.trainable), model.pointer);
  const std::string described = estimate::describe_setup(setup);
  facts.set("estimate.setup",
            fmt::format("{}{} on {} rank{} per node{}, {}{}", described, described.find(',') == std::string::npos ? "" : ",",
                        setup.gpus_per_node, setup.gpus_per_node == 1 ? "" : "s",
                        setup.nodes > 1 ? fmt::format(" x {} nodes", setup.nodes) : "",
                        // A precision no config set is assumed, and said to be.
                        facts.get("config.precision").value ? std::string(estimate::to_string(setup.precision))
                                                            : fmt::format("{} (assumed: no config sets the precision)", estimate::to_string(setup.precision)),
                        setup.finetune == estimate::Finetune::full ? ", full fine-tuning" : ""),
            setup_pointer);
  facts.set("estimate.save_peak_bytes", as_int(host.checkpoint_save.peak.bytes), setup_pointer);
  facts.set("estimate.save_peak_formula", host.checkpoint_save.peak.formula, setup_pointer);
  facts.set("estimate.save_largest_phase", host.checkpoint_save.largest_phase, setup_pointer);
  facts.set("estimate.host_steady_bytes", as_int(host.steady.bytes), setup_pointer);
  facts.set("estimate.host_peak_bytes", as_int(host.peak().bytes), setup_pointer);
  facts.set("estimate.host_peak_when", host.peak().name, setup_pointer);
  facts.set("estimate.gpu_model_states_bytes", as_int(e.per_gpu.model_states()), setup_pointer);
  if (e.per_gpu.activations) {
    facts.set("estimate.gpu_activations_bytes", as_int(e.per_gpu.activations->chosen(setup).bytes), model.pointer);
    facts.set("estimate.gpu_total_bytes", as_int(e.per_gpu.total.bytes), setup_pointer);
  } else {
    facts.set_missing("estimate.gpu_total_bytes", {MissingReason::not_present, e.per_gpu.activations_missing});
  }

  std::string capacity_pointer;
  if (auto capacity = host_capacity(facts, capacity_pointer)) {
    facts.set("estimate.host_capacity_bytes", as_int(capacity->first), capacity_pointer);
    facts.set("estimate.host_capacity_source", capacity->second, capacity_pointer);
    facts.set("estimate.save_peak_ratio", host.checkpoint_save.peak.bytes / capacity->first, setup_pointer);
    facts.set("estimate.host_peak_ratio", host.peak().bytes / capacity->first, setup_pointer);
    if (setup.zero_stage < 3) {
      // The remedies with their numbers: ZeRO-3's gather, and fewer ranks per node.
      auto zero3 = setup;
      zero3.zero_stage = 3;
      zero3.gather_16bit_weights_on_save = true;
      if (auto alternative = estimate::estimate_memory(model.shape, zero3)) {
        facts.set("estimate.zero3_save_peak_bytes", as_int(alternative->per_node_host.checkpoint_save.peak.bytes), setup_pointer);
      }
      for (std::uint64_t n = setup.gpus_per_node; n >= 1; --n) {
        auto fewer = setup;
        fewer.gpus_per_node = n;
        auto smaller = estimate::estimate_memory(model.shape, fewer);
        if (smaller && smaller->per_node_host.checkpoint_save.peak.bytes <= estimate::kHostUsableFraction * capacity->first) {
          facts.set("estimate.save_fits_ranks_per_node", static_cast<std::int64_t>(n), setup_pointer);
          break;
        }
      }
    }
  }
}

}  // namespace ftdiag::facts
