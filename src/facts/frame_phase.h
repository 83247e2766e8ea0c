// What a process was doing when memory ran out (CUDA's, or the host's), told
// by the Python frames of the traceback above the error. The phase names the
// memory that did not fit, and so the fix: weights (model-load), activations
// (forward, backward), optimizer states (optimizer-step), evaluation's
// batches and logits (evaluation), a gathered state dict (checkpoint-save),
// the dataset or its batches (data-preprocessing).
//
// Evaluation, checkpoint saves, model loads and data are the context a forward
// or an allocation runs in: anywhere in the stack, the innermost decides (an
// evaluation's forward is evaluation). Otherwise a backward frame anywhere decides
// backward (gradient checkpointing re-runs forward frames inside it), then
// an optimizer step, then a module's forward.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parse/logs/python_traceback.h"

namespace ftdiag::facts {

struct PhaseFromFrames {
  std::string phase;    // model-load, forward, backward, optimizer-step, evaluation, checkpoint-save, data-preprocessing
  std::string because;  // the deciding frame: "`loss.backward()` in backward (utils/fp16.py:194)"
  std::size_t frame = 0;  // its index in the frames given
};

// `frames` innermost first (parse::traceback_frames_above). nullopt when no
// frame is one the table knows.
std::optional<PhaseFromFrames> phase_from_frames(const std::vector<parse::TracebackFrame>& frames);

}  // namespace ftdiag::facts
