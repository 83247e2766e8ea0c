// Stacks as one line of text, the same in facts (crash.stack,
// gasp.python_stack) and in the run summary: each frame as "function
// (file:line)", or "module+0xoffset" when unnamed, innermost first, joined
// by " <- ". The Python probe's own wrapper of a framework call is left out:
// it is not the job's code. In a fact, Python stacks fold the internals of
// torch and the standard library, so that the job's own code stays within
// the length a sentence shows.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/document.h"
#include "parse/logs/faulthandler.h"

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

// The package a Python frame's file belongs to: "torch" for
// .../site-packages/torch/serialization.py (or dist-packages), "python" for
// the standard library (.../lib/python3.11/pickle.py, "<frozen ...>"), empty
// for anything else: the job's own files.
std::string python_package(std::string_view file);

// Whether a package's inner frames are folded: torch's and the standard
// library's ("python") say nothing of the job's choices; any other
// package's frames are shown.
bool folds_frames_of(std::string_view package);

// "(2 torch frames)", "(1 standard-library frame)".
std::string folded_frames(std::string_view package, std::size_t count);

// As stack_text, with the internals of torch and the standard library
// folded: after the innermost frame (where the time or the memory went), a
// run of frames of one of them shows only its outermost frame, the call the
// code above made, after how many it hides:
//   "_reduce_ex_internal (_tensor.py:391) <- (2 torch frames) <- save
//    (serialization.py:423) <- save_checkpoint (train.py:40)"
// `shown` counts the frames shown.
// Python frames a stack fact shows (crash.python_stack, gasp.python_stack).
inline constexpr std::size_t kPythonFramesAsText = 8;

template <class Frame>
std::string python_stack_text(const std::vector<Frame>& frames, std::size_t shown) {
  std::string text;
  std::size_t displayed = 0, next = 0;
  auto add = [&](const std::string& part) { text += (text.empty() ? "" : " <- ") + part; };
  while (next < frames.size() && displayed < shown) {
    const std::string package = python_package(frames[next].file);
    std::size_t outermost = next;
    if (next > 0 && folds_frames_of(package)) {
      while (outermost + 1 < frames.size() && python_package(frames[outermost + 1].file) == package) ++outermost;
      if (outermost > next) add(folded_frames(package, outermost - next));
    }
    add(frame_place(frames[outermost]));
    ++displayed;
    next = outermost + 1;
  }
  if (next < frames.size()) add("... (" + std::to_string(frames.size() - next) + " more)");
  return text;
}

}  // namespace ftdiag::facts
