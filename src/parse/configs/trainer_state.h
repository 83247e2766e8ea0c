// The Hugging Face Trainer's trainer_state.json, written into every
// checkpoint-N folder: where training stood at that save. Its log_history
// grows by one entry per logging step (a long run's holds tens of
// thousands), so only its length and its last entry are kept:
//
//   {"global_step": 1500, "max_steps": 3000, "save_steps": 500,
//    "log_history": [..., {"epoch": 1.2, "loss": 0.81, "step": 1500}]}
//   -> global_step = 1500, max_steps = 3000, save_steps = 500,
//      log_history.length = N, log_history.last.step = 1500, log_history.last.loss = 0.81, ...
#pragma once

#include <cstddef>
#include <string_view>

#include "base/fact.h"
#include "parse/configs/dotted_settings.h"

namespace ftdiag::parse {

// Larger than other configs: the history is long, the rest is small.
inline constexpr std::size_t kMaxTrainerStateBytes = std::size_t{64} << 20;

// Pure. Every other key flattens as flatten_json_settings would; values
// nested deeper than kMaxJsonSettingsDepth are dropped. Missing(unparseable)
// for malformed JSON ("line L, column C: message"), a top level that is not
// an object, input over kMaxTrainerStateBytes.
Fact<DottedSettings> read_trainer_state(std::string_view text);

// Whether a JSON text is a trainer state, from its first bytes ("log_history"
// or "global_step" among its keys); cheap, for choosing this reader.
bool looks_like_trainer_state(std::string_view text);

}  // namespace ftdiag::parse
