#include "report/preflight_inputs.h"

#include <fmt/format.h>

#include "rules/explanation.h"

namespace ftdiag::report {

namespace {

struct Row {
  const char* label;
  const char* first_fact;  // the row is "not read" (with its reason) when this one is missing
  const char* text;        // a rule text: {fact} filled, [[...]] only when its facts are known
  const char* absent;      // what its absence means, when no source gave a reason
};

// Each row's text follows rules/'s template language (docs/rules.md, Texts).
constexpr Row kRows[] = {
    {"Python", "python.version", "{python.version}, {python.interpreter}", "no interpreter found"},
    {"torch", "torch.version", "{torch.version}[[, built for CUDA {torch.cuda_version}]][[, in {torch.location}]]", "not installed for this interpreter"},
    {"DeepSpeed", "deepspeed.version", "{deepspeed.version}[[, ops built for torch {deepspeed.built_torch_release}]][[ and CUDA {deepspeed.built_cuda_version}]]",
     "not installed for this interpreter"},
    {"CUDA toolkit", "cuda.toolkit_version", "{cuda.toolkit_version} (nvcc: what extensions built at run time use)", "no nvcc found"},
    {"GPU driver", "gpu.driver_version", "{gpu.driver_version}[[, supports CUDA {gpu.driver_cuda_version}]]",
     "no NVIDIA driver library (libcuda.so.1, libnvidia-ml.so.1) answered"},
    {"GPUs", "gpu.count", "{gpu.count}[[ x {gpu.name}]][[, {gpu.memory_total_bytes} of memory in all]]", "not asked"},
    {"host memory", "host.mem_total_bytes", "{host.mem_total_bytes} RAM[[, {host.swap_total_bytes} swap]][[, a cgroup limit of {host.cgroup_limit_bytes}]]",
     "not read"},
    {"/dev/shm", "host.shm_total_bytes", "{host.shm_total_bytes}[[, {host.shm_available_bytes} free]]", "not mounted"},
    {"limits", "host.nofile", "open files {host.nofile}[[, locked memory {host.memlock_bytes}]][[, core files {host.core_bytes}]]", "not read"},
    {"configs", "config.sources", "{config.sources}", "none named (--deepspeed FILE, --model DIR, -- COMMAND)"},
    {"estimate", "estimate.setup", "{estimate.setup}[[: a checkpoint save peaks at {estimate.save_peak_bytes} per node]]",
     "needs the ZeRO stage (--deepspeed FILE, or the command's config) and the model's size (--model DIR)"},
};

// What extract_facts says of a registered fact no source gave (facts/extract.cpp).
constexpr std::string_view kNoSource = "no evidence for it in this record";

}  // namespace

std::string render_preflight_inputs(const facts::FactSet& facts, const TextStyle& style) {
  std::string out = toned(style, Tone::strong, "ftdiag preflight read:") + "\n";
  for (const auto& row : kRows) {
    const auto& first = facts.get(row.first_fact).value;
    std::string text;
    if (first) {
      text = rules::render_template(row.text, facts);
    } else {
      // A source's own reason says more than the generic one of a fact no source gave.
      const auto& why = first.missing().detail;
      text = why.empty() || why == kNoSource ? row.absent : why;
    }
    out += wrap(text, style.width, fmt::format("  {:<13} ", row.label), std::string(16, ' '));
  }
  // The estimate's figures follow the interpreter: a CPU-only torch trains on
  // the CPU (fp32, every state in host RAM), a CUDA build on the GPUs.
  if (facts.value_of<bool>("torch.cpu_only") == true && facts.get("estimate.setup").value) {
    out += wrap("(the estimate counts training on the CPU: this interpreter's torch is a CPU-only build; "
                "with a CUDA build of torch, or --python naming the job's interpreter, it counts the GPUs)",
                style.width, std::string(16, ' '), std::string(16, ' '));
  }
  return out;
}

}  // namespace ftdiag::report
