// Stacks as one line of text, the same in facts (crash.stack,
// gasp.python_stack) and in the run summary: each frame as "function
// (file:line)", or "module+0xoffset" when unnamed, innermost first, joined
// by " <- ". The Python probe's own wrapper of a framework call is left out:
// it is not the job's code.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "evidence/document.h"
#include "parse/faulthandler.h"

namespace ftdiag::facts {

std::string frame_place(const evidence::StackFrame& frame);
std::string frame_place(const parse::PythonFrame& frame);

// The frames of the job's own code: native frames, and Python frames that
// are not the probe's.
std::vector<evidence::StackFrame> job_frames(const std::vector<evidence::StackFrame>& frames);
std::vector<parse::PythonFrame> job_frames(const std::vector<parse::PythonFrame>& frames);

// At most `shown` frames, then " <- ... (N more)".
template <class Frame>
std::string stack_text(const std::vector<Frame>& frames, std::size_t shown) {
  std::string text;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    if (i == shown) return text + " <- ... (" + std::to_string(frames.size() - shown) + " more)";
    if (i) text += " <- ";
    text += frame_place(frames[i]);
  }
  return text;
}

}  // namespace ftdiag::facts
