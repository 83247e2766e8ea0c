// The phase markers the Python probe sent (a framework's save, load or
// evaluation began or ended): which call was still open when a process died.
// A marker is the framework's own word for the phase, so it outranks what
// the console's lines suggest.
#pragma once

#include <optional>
#include <string>

#include "evidence/document.h"

namespace ftdiag::facts {

struct OpenCall {
  std::string phase;   // "checkpoint-save"
  std::string what;    // the outermost open call: "transformers.Trainer._save_checkpoint"
  std::string inner;   // the innermost, when another call is open inside it ("torch.save"); else empty
  double began = 0;
  int pid = 0;
  std::optional<int> rank;
  std::size_t index = 0;  // of the outermost's begin marker in run.probe_markers
};

// The calls open at `time` in the process `pid` (as it sees itself), or,
// when it had none, in any process of the run (every rank saves at once).
std::optional<OpenCall> open_call_at(const evidence::RunEvidence& run, std::optional<int> pid, double time);

}  // namespace ftdiag::facts
