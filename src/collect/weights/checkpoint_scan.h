// A checkpoint folder and whether its save finished, read from names,
// sizes and the few bytes that mark a file's end (weight_files.h).
//
//   checkpoint-N/      HF Trainer. Whole when it holds model weights
//                      (model.safetensors, pytorch_model.bin, adapter_model.*,
//                      a sharded *.index.json with every shard it names
//                      present and non-empty, or a DeepSpeed global_step*
//                      folder that is whole) and trainer_state.json, which
//                      the Trainer writes after the weights.
//   global_stepN/      DeepSpeed. Whole when it holds *_model_states.pt, its
//                      *_optim_states.pt ranks run 0..R without a gap (and
//                      ZeRO-3's per-rank model states match them), and the
//                      `latest` file beside it names this tag or a later one:
//                      DeepSpeed writes `latest` once every rank saved.
//   tmp-checkpoint-N/  the Trainer's folder while it saves (renamed to
//                      checkpoint-N at the end): never whole.
// In every layout an empty weights, state or JSON file, or a truncated one,
// means the save did not finish.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "parse/weights/checkpoint_names.h"

namespace ftdiag::collect {

// Bounds of one scan: a checkpoint holds tens of files, a few levels deep.
inline constexpr int kMaxCheckpointDepth = 3;
inline constexpr std::uint64_t kMaxCheckpointFiles = 100000;

struct CheckpointScan {
  parse::CheckpointLayout layout = parse::CheckpointLayout::hf_trainer;
  std::uint64_t step = 0;
  std::uint64_t files = 0;
  std::uint64_t bytes = 0;
  std::optional<double> modified;  // the newest file's mtime, seconds since the epoch
  // true when whole. Missing when not: not_present (a file missing or
  // empty, a tmp folder), unparseable (a file truncated), or
  // permission_denied / failed when the folder could not be read (then
  // whether it is whole is unknown).
  Fact<bool> complete = Missing{MissingReason::not_present, "not checked"};
};

// Reads the folder (bounded as above; symbolic links are not followed).
// nullopt when its name is not a checkpoint's.
std::optional<CheckpointScan> scan_checkpoint(const std::filesystem::path& folder);

}  // namespace ftdiag::collect
