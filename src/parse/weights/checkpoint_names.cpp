#include "parse/weights/checkpoint_names.h"

#include "base/text.h"

namespace ftdiag::parse {
namespace {

std::optional<std::uint64_t> step_after(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return std::nullopt;
  return text::to_u64(name.substr(prefix.size()));
}

}  // namespace

std::string_view to_string(CheckpointLayout layout) {
  switch (layout) {
    case CheckpointLayout::hf_trainer: return "hf-trainer";
    case CheckpointLayout::deepspeed: return "deepspeed";
    case CheckpointLayout::trainer_temporary: return "tmp-checkpoint";
  }
  return "unknown";
}

std::optional<CheckpointName> checkpoint_name(std::string_view folder_name) {
  if (auto step = step_after(folder_name, "checkpoint-")) return CheckpointName{CheckpointLayout::hf_trainer, *step};
  if (auto step = step_after(folder_name, "tmp-checkpoint-")) return CheckpointName{CheckpointLayout::trainer_temporary, *step};
  if (auto step = step_after(folder_name, "global_step")) return CheckpointName{CheckpointLayout::deepspeed, *step};
  return std::nullopt;
}

std::optional<std::uint64_t> zero_rank(std::string_view name) {
  const auto at = name.find("zero_pp_rank_");
  if (at == std::string_view::npos) return std::nullopt;
  name.remove_prefix(at + 13);
  return text::to_u64(name.substr(0, name.find('_')));
}

}  // namespace ftdiag::parse
