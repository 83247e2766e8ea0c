#include "estimate/advisor.h"

#include <fmt/format.h>

namespace ftdiag::estimate {

namespace {

std::optional<Option> evaluate(const ModelShape& shape, const TrainingSetup& setup, const Resources& resources) {
  auto estimate = estimate_memory(shape, setup);
  if (!estimate) return std::nullopt;
  Option option;
  option.name = describe_setup(setup);
  option.setup = setup;
  option.per_gpu_bytes = estimate->per_gpu.total.bytes;
  option.host_save_peak_bytes = estimate->per_node_host.checkpoint_save.peak.bytes;
  option.host_peak_bytes = estimate->per_node_host.peak().bytes;
  option.host_peak_when = estimate->per_node_host.peak().name;
  if (resources.gpu_memory_bytes) option.fits_gpu = option.per_gpu_bytes <= kGpuUsableFraction * *resources.gpu_memory_bytes;
  if (resources.host_memory_bytes) option.fits_host = option.host_peak_bytes <= kHostUsableFraction * *resources.host_memory_bytes;
  const bool within_gpu = !resources.gpu_memory_bytes || option.per_gpu_bytes <= *resources.gpu_memory_bytes;
  const bool within_host = !resources.host_memory_bytes || option.host_peak_bytes <= *resources.host_memory_bytes;
  option.tight = within_gpu && within_host && !(option.fits_gpu.value_or(true) && option.fits_host.value_or(true));
  return option;
}

std::vector<TrainingSetup> candidates(const TrainingSetup& asked) {
  std::vector<TrainingSetup> out;
  auto with = [&](int stage, bool offload_optimizer, bool offload_param, Finetune finetune) {
    TrainingSetup s = asked;
    s.zero_stage = stage;
    s.offload_optimizer = offload_optimizer;
    s.offload_param = offload_param;
    s.finetune = finetune;
    out.push_back(s);
  };
  const bool one_gpu = asked.data_parallel_ranks() == 1;
  const Finetune f = asked.finetune;
  // Least sharded first: each step trades speed for memory.
  if (one_gpu) {
    with(0, false, false, f);
  } else {
    with(2, false, false, f);
    with(3, false, false, f);
  }
  with(one_gpu ? 2 : 3, true, false, f);
  with(3, true, true, f);
  if (f == Finetune::full || f == Finetune::freeze) {
    with(one_gpu ? 0 : 2, false, false, Finetune::lora);
    if (!one_gpu) with(3, false, false, Finetune::lora);
  }
  if (f != Finetune::qlora) with(one_gpu ? 0 : 2, false, false, Finetune::qlora);
  return out;
}

bool fits(const Option& o) { return o.fits_gpu.value_or(true) && o.fits_host.value_or(true); }

std::string gpu_text(const Option& o, const Resources& r) {
  return r.gpu_memory_bytes ? fmt::format("{} per GPU of {}", size_text(o.per_gpu_bytes), size_text(*r.gpu_memory_bytes))
                            : fmt::format("{} per GPU", size_text(o.per_gpu_bytes));
}

}  // namespace

std::string describe_setup(const TrainingSetup& setup) {
  std::string text = fmt::format("ZeRO-{}", setup.zero_stage);
  if (setup.data_parallel_ranks() == 1 && setup.zero_stage == 0 && !setup.offload_optimizer) text = "one GPU, no ZeRO";
  if (setup.offload_optimizer && setup.offload_param) {
    text += " + optimizer and parameter offload";
  } else if (setup.offload_optimizer) {
    text += " + optimizer offload";
  }
  if (setup.zero_stage == 3 && !setup.offload_param) text += setup.gather_16bit_weights_on_save ? ", 16-bit gather on save" : "";
  if (setup.tensor_parallel > 1) {
    text += fmt::format(", tensor parallel {}{}", setup.tensor_parallel, setup.sequence_parallel ? " with sequence parallelism" : "");
  }
  if (setup.finetune == Finetune::lora) return fmt::format("LoRA rank {}, {}", setup.lora_rank, text);
  if (setup.finetune == Finetune::qlora) return fmt::format("QLoRA rank {}, {}", setup.lora_rank, text);
  return text;
}

Advice advise(const ModelShape& shape, const TrainingSetup& setup, const Resources& resources) {
  Advice advice;
  for (const auto& candidate : candidates(setup)) {
    if (auto option = evaluate(shape, candidate, resources)) advice.options.push_back(std::move(*option));
  }
  if (advice.options.empty()) return advice;
  if (!resources.gpu_memory_bytes) advice.reasons.push_back("The GPUs' memory is not known (--gpu-mem): options are judged by host memory alone.");
  if (!resources.host_memory_bytes) advice.reasons.push_back("Host memory is not known (--host-mem): options are judged by GPU memory alone.");

  // What is trained is the user's choice: a tight fit of it comes before
  // switching to LoRA. Within each, with the margins first, then tight.
  for (const bool same_method : {true, false}) {
    for (const bool with_margin : {true, false}) {
      for (std::size_t i = 0; i < advice.options.size() && !advice.chosen; ++i) {
        const auto& o = advice.options[i];
        if ((o.setup.finetune == setup.finetune) != same_method) continue;
        if (with_margin ? fits(o) : o.tight) advice.chosen = i;
      }
    }
  }
  // Why each faster option was passed over, in the order they were tried.
  const std::size_t stop = advice.chosen.value_or(advice.options.size());
  for (std::size_t i = 0; i < stop; ++i) {
    const auto& o = advice.options[i];
    if (!o.fits_gpu.value_or(true)) {
      advice.reasons.push_back(fmt::format("{} does not fit the GPUs: it needs {} (with a {:.0f}% margin).", o.name,
                                           gpu_text(o, resources), (1 - kGpuUsableFraction) * 100));
      continue;
    }
    if (!resources.host_memory_bytes) continue;
    const std::string save = o.host_peak_when == "checkpoint save"
                                 ? ""
                                 : fmt::format(" ({} at its checkpoint save)", size_text(o.host_save_peak_bytes));
    advice.reasons.push_back(fmt::format(
        "{} fits the GPUs ({}) but needs {} of host RAM per node at its {}{}; this node has {}{}.", o.name, gpu_text(o, resources),
        size_text(o.host_peak_bytes), o.host_peak_when, save, size_text(*resources.host_memory_bytes),
        resources.host_memory_source.empty() ? "" : fmt::format(" ({})", resources.host_memory_source)));
    if (o.setup.zero_stage < 3 && o.setup.gpus_per_node > 1 &&
        !advice.zero2_ranks_per_node_that_fit) {
      for (std::uint64_t n = o.setup.gpus_per_node - 1; n >= 1; --n) {
        TrainingSetup fewer = o.setup;
        fewer.gpus_per_node = n;
        auto smaller = evaluate(shape, fewer, resources);
        if (smaller && smaller->fits_host.value_or(true)) {
          advice.zero2_ranks_per_node_that_fit = n;
          advice.reasons.push_back(fmt::format("{} would fit host memory with {} ({} at save).", o.name,
                                               n == 1 ? std::string("one rank per node") : fmt::format("at most {} ranks per node", n),
                                               size_text(smaller->host_save_peak_bytes)));
          break;
        }
      }
    }
  }
  if (advice.chosen) {
    const auto& c = advice.options[*advice.chosen];
    advice.reasons.push_back(fmt::format("{}: {} and {} of host RAM per node at most (its {}){}.", c.name, gpu_text(c, resources),
                                         size_text(c.host_peak_bytes), c.host_peak_when,
                                         c.tight ? ", which leaves less than the margin free: tight" : ""));
  } else {
    advice.reasons.push_back("Nothing fits: more GPUs or nodes, GPUs with more memory, or more host RAM are needed.");
  }
  return advice;
}

}  // namespace ftdiag::estimate
