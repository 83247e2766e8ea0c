#include "report/estimate_text.h"

#include <fmt/format.h>

namespace ftdiag::report {

namespace {

using namespace ftdiag::estimate;

std::string row(const std::string& name, double bytes, const std::string& formula) {
  return fmt::format("  {:<22} {:>9}   {}\n", name, size_text(bytes), formula);
}

std::string row(const Term& term) { return row(term.name, term.bytes, term.formula); }

std::string heading(const MemoryEstimate& e) {
  const auto& s = e.setup;
  std::string model = fmt::format("{} parameters", parameters_text(static_cast<double>(e.shape.parameters)));
  if (!e.shape.architecture.empty()) model = e.shape.architecture + ", " + model;
  std::string trained = s.finetune == Finetune::full ? "full fine-tuning"
                                                     : fmt::format("{} ({} trained)", to_string(s.finetune),
                                                                   parameters_text(e.parameters.trainable));
  const std::string source =
      e.shape.assumed_from.empty() ? e.shape.source
                                   : fmt::format("{}; its layers assumed to be {}'s: --model DIR for its own", e.shape.source,
                                                 e.shape.assumed_from);
  return fmt::format("Model: {} (from {})\nSetup: {} on {} GPU{} per node x {} node{}, {}, {}, micro-batch {} x {} tokens{}\n",
                     model, source, describe_setup(s), s.gpus_per_node, s.gpus_per_node == 1 ? "" : "s", s.nodes,
                     s.nodes == 1 ? "" : "s", to_string(s.precision), trained, s.micro_batch, s.sequence_length,
                     s.gradient_checkpointing ? ", gradient checkpointing"
                     : s.selective_recompute  ? ", selective recomputation"
                                              : "");
}

std::string per_gpu(const MemoryEstimate& e) {
  const auto& g = e.per_gpu;
  std::string out = "\nPer GPU\n";
  out += row(g.states.weights);
  out += row(g.states.gradients);
  out += row(g.states.optimizer_states);
  out += row("model states", g.model_states(), "");
  if (g.optimizer_step.bytes > 0) out += row(g.optimizer_step);
  if (g.autocast_copies.bytes > 0) out += row(g.autocast_copies);
  out += row(g.buffers);
  if (g.activations) {
    out += row(g.activations->chosen(e.setup));
    const auto& other = e.setup.gradient_checkpointing ? g.activations->without_checkpointing : g.activations->with_checkpointing;
    out += fmt::format("  {:<22} {:>9}   {}\n", "", "", fmt::format("({} {} gradient checkpointing)", size_text(other.bytes),
                                                                  e.setup.gradient_checkpointing ? "without" : "with"));
  } else {
    out += fmt::format("  {:<22} {:>9}   {}\n", "activations", "unknown", g.activations_missing);
  }
  out += row(g.cuda_context);
  const std::string decimal = fmt::format("{:.1f} GB", g.total.bytes / 1e9);
  out += row("total", g.total.bytes, g.activations ? decimal : decimal + ", without activations");
  return out;
}

std::string host(const HostMemory& h) {
  std::string out = "\nHost RAM per node\n";
  out += row(h.steady);
  out += row(h.model_load);
  out += row(h.init);
  out += row(h.checkpoint_save.peak);
  for (const auto& phase : h.checkpoint_save.phases) {
    const bool peak = phase.name == h.checkpoint_save.largest_phase;
    out += fmt::format("  {:<22} {:>9}   {}{}\n", "", size_text(phase.bytes), phase.name,
                       !peak ? "" : phase.bytes > 0 ? " (the peak)" : " (nothing beyond the steady figure)");
  }
  out += row(h.resume);
  return out;
}

std::string deepspeed(const MemoryEstimate& e) {
  if (e.deepspeed_rows.empty()) return "\nDeepSpeed's estimator: not shown, it counts no tensor parallelism\n";
  std::string out = fmt::format(
      "\nDeepSpeed's estimator ({}_model_states_mem_needs, {}; model states only, every parameter trained; its \"GB\" are GiB)\n",
      e.setup.zero_stage < 3 ? "estimate_zero2" : "estimate_zero3", deepspeed_formula_text(e.setup));
  out += "    per CPU  |  per GPU |   Options\n";
  for (std::size_t i = 0; i < e.deepspeed_rows.size(); ++i) {
    out += fmt::format("  {}{}\n", deepspeed_row_text(e.deepspeed_rows[i]), e.deepspeed_matching_row == i ? "   <- this setup" : "");
  }
  if (e.parameters.frozen > 0) {
    out += fmt::format("  (its rows count the {} frozen parameters as trained, with gradients and Adam states: an upper bound "
                       "for {}, DeepSpeed#5304)\n",
                       parameters_text(e.parameters.frozen), to_string(e.setup.finetune));
  }
  return out;
}

// A tight option is within both memories but not their margins: the one
// that misses its margin reads "tight", not "no".
std::string fit_text(const std::optional<bool>& fits, bool tight) {
  if (!fits) return "?";
  if (*fits) return "yes";
  return tight ? "tight" : "no";
}

std::string advice_text(const Advice& advice, const Resources& resources) {
  std::string out = "\nAdvice";
  if (resources.gpu_memory_bytes || resources.host_memory_bytes) {
    out += fmt::format(" (GPU {}, host {}{})", resources.gpu_memory_bytes ? size_text(*resources.gpu_memory_bytes) : "unknown",
                       resources.host_memory_bytes ? size_text(*resources.host_memory_bytes) : "unknown",
                       resources.host_memory_source.empty() ? "" : ", " + resources.host_memory_source);
  }
  out += ": ";
  out += advice.chosen ? advice.options[*advice.chosen].name : "nothing fits";
  out += "\n";
  for (const auto& reason : advice.reasons) out += "  - " + reason + "\n";
  out += fmt::format("\n  {:<52} {:>9} {:>10} {:>9}  {:<5} {:<5}\n", "option", "per GPU", "save peak", "host peak", "GPU", "host");
  for (std::size_t i = 0; i < advice.options.size(); ++i) {
    const auto& o = advice.options[i];
    out += fmt::format("{} {:<52} {:>9} {:>10} {:>9}  {:<5} {:<5}\n", advice.chosen == i ? "*" : " ", o.name,
                       size_text(o.per_gpu_bytes), size_text(o.host_save_peak_bytes), size_text(o.host_peak_bytes),
                       fit_text(o.fits_gpu, o.tight), fit_text(o.fits_host, o.tight));
  }
  return out;
}

}  // namespace

std::string render_estimate(const MemoryEstimate& estimate, const Resources& resources, const Advice& advice) {
  std::string out = heading(estimate);
  out += per_gpu(estimate);
  out += host(estimate.per_node_host);
  out += deepspeed(estimate);
  out += advice_text(advice, resources);
  out += "\nHost figures assume every rank's copies overlap (an upper bound); the baseline per rank is assumed unless "
         "--rank-baseline says it. Sizes are GiB (2^30 bytes, as free -h counts); the ZeRO paper and the DeepSpeed and "
         "LLaMA-Factory tables write GB (10^9 bytes): 1 GiB = 1.074 GB. Formulas: docs/memory-model.md.\n";
  return out;
}

}  // namespace ftdiag::report
