// What the names of checkpoint folders and files say: the layout and step of
// a folder (checkpoint-N, global_stepN, tmp-checkpoint-N) and the rank of a
// DeepSpeed ZeRO state file. The reader (collect/weights/checkpoint_scan.h)
// lists the folders and judges whether each save finished.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ftdiag::parse {

enum class CheckpointLayout { hf_trainer, deepspeed, trainer_temporary };

std::string_view to_string(CheckpointLayout layout);  // "hf-trainer", "deepspeed", "tmp-checkpoint"

struct CheckpointName {
  CheckpointLayout layout;
  std::uint64_t step = 0;
};

// Pure: "checkpoint-500", "global_step500", "tmp-checkpoint-500"; nullopt for
// any other name.
std::optional<CheckpointName> checkpoint_name(std::string_view folder_name);

// "zero_pp_rank_3_mp_rank_00_optim_states.pt" -> 3; nullopt for a name
// without "zero_pp_rank_N".
std::optional<std::uint64_t> zero_rank(std::string_view name);

}  // namespace ftdiag::parse
