#include "facts/stack_text.h"

#include <fmt/format.h>

#include "facts/module_roles.h"

namespace ftdiag::facts {

namespace {

bool is_probe_file(const std::string& file) { return file.find("/ftdiag_probe/") != std::string::npos; }

}  // namespace

std::string frame_place(const evidence::StackFrame& frame) {
  if (!frame.function.empty()) {
    if (!frame.file.empty() && frame.line) return fmt::format("{} ({}:{})", frame.function, base_name(frame.file), *frame.line);
    return fmt::format("{} ({})", frame.function, base_name(frame.object.empty() ? frame.file : frame.object));
  }
  if (!frame.object.empty() && frame.offset) return fmt::format("{}+{:#x}", base_name(frame.object), *frame.offset);
  return frame.address ? fmt::format("{:#x}", *frame.address) : std::string("?");
}

std::string frame_place(const parse::PythonFrame& frame) {
  return frame.line ? fmt::format("{} ({}:{})", frame.function, base_name(frame.file), *frame.line)
                    : fmt::format("{} ({})", frame.function, base_name(frame.file));
}

std::vector<evidence::StackFrame> job_frames(const std::vector<evidence::StackFrame>& frames) {
  std::vector<evidence::StackFrame> kept;
  for (const auto& frame : frames) {
    if (frame.language == "native" || !is_probe_file(frame.file)) kept.push_back(frame);
  }
  return kept;
}

std::vector<parse::PythonFrame> job_frames(const std::vector<parse::PythonFrame>& frames) {
  std::vector<parse::PythonFrame> kept;
  for (const auto& frame : frames) {
    if (!is_probe_file(frame.file)) kept.push_back(frame);
  }
  return kept;
}

}  // namespace ftdiag::facts
