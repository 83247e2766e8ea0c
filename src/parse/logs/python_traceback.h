// The frames of a Python traceback printed in a log, read upwards from the
// exception line that ends it:
//
//   Traceback (most recent call last):
//     File "/src/train.py", line 605, in training_step
//       self.backward(loss)
//     File "/site-packages/torch/_tensor.py", line 363, in backward
//       torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
//       ^^^^^^^^^^^^^^^^^^^^^^^                                  (3.11+ carets, skipped)
//   torch.OutOfMemoryError: CUDA out of memory. ...
//
// A prefix on every line ("[rank0]: ", torchrun's) or only on the first (a
// logger's stamp before "Traceback") is allowed. The frames end upwards at
// the "Traceback (most recent call last):" line, or, when the log kept only
// the traceback's end, at the first line that cannot belong to it (more than
// kMaxLinesPerFrame lines from the frame below). Frame lines have a comma
// before "in" (faulthandler's have none: parse/logs/faulthandler.h).
//
// Pure; never throws; looks at most kMaxTracebackLines lines above the end.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ftdiag::parse {

struct TracebackFrame {
  std::string file;
  std::uint64_t line = 0;
  std::string function;
  std::string code;       // the source line Python printed under it, trimmed; empty when none
  std::size_t index = 0;  // of the "File" line in the lines given

  bool operator==(const TracebackFrame&) const = default;
};

// A frame's "File" line, its code and carets, "[Previous line repeated N more times]".
inline constexpr std::size_t kMaxLinesPerFrame = 6;
inline constexpr std::size_t kMaxTracebackLines = 1000;

// The frames of the traceback whose exception line is lines[end], innermost
// first (the reverse of the printed order). Empty when none is above it.
std::vector<TracebackFrame> traceback_frames_above(std::span<const std::string_view> lines, std::size_t end);

// Frames that repeat from the innermost outwards: the same `period` frames
// (file, line and function) over and over, `frames` of them in all: a
// function re-entered through the same calls, a recursion. Nested calls
// through one helper (a module's __call__ around each layer's own forward)
// differ in the frames between and never repeat whole. Needs two whole
// periods and at least kMinRepeatingFrames frames; the period that explains
// the most frames wins (the shortest among equals).
struct RepeatingFrames {
  std::size_t period = 0;
  std::size_t frames = 0;

  bool operator==(const RepeatingFrames&) const = default;
};
inline constexpr std::size_t kMaxRepeatingPeriod = 8;
inline constexpr std::size_t kMinRepeatingFrames = 4;
std::optional<RepeatingFrames> repeating_frames(std::span<const TracebackFrame> innermost_first);

// The same, for a traceback someone shortened by hand: a line of only "...",
// "…" or "[...]" between two frames stands for frames left out, so the
// period may break there. The innermost run of frames up to the first such
// line may be too short to repeat by itself; it still counts when each of
// its frames is one of the repeating frames found above it. `lines` are the
// lines the frames' indexes point into.
std::optional<RepeatingFrames> repeating_frames_across_elisions(std::span<const TracebackFrame> innermost_first,
                                                                std::span<const std::string_view> lines);

}  // namespace ftdiag::parse
