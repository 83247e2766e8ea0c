// Traceback frames from arbitrary lines: the reader must never crash, and
// every frame it returns must be a "File" line above the end, innermost
// first, within the window it promises.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "parse/logs/python_traceback.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    lines.push_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (lines.empty()) return 0;
  const std::size_t end = lines.size() - 1;
  const auto frames = ftdiag::parse::traceback_frames_above(lines, end);
  std::size_t below = end;
  for (const auto& frame : frames) {
    if (frame.index >= below || end - frame.index > ftdiag::parse::kMaxTracebackLines) __builtin_trap();
    if (frame.function.empty() || lines[frame.index].find(frame.file) == std::string_view::npos) __builtin_trap();
    below = frame.index;
  }
  return 0;
}
