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

std::string python_package(std::string_view file) {
  for (const std::string_view root : {"/site-packages/", "/dist-packages/"}) {
    const auto at = file.rfind(root);
    if (at == std::string_view::npos) continue;
    std::string_view rest = file.substr(at + root.size());
    rest = rest.substr(0, rest.find('/'));
    if (rest.ends_with(".py")) rest.remove_suffix(3);
    return std::string(rest);
  }
  if (file.starts_with("<frozen ")) return "python";
  // .../lib/python3.11/pickle.py: the interpreter's own library.
  constexpr std::string_view kLib = "/lib/python";
  const auto lib = file.rfind(kLib);
  const auto version = lib == std::string_view::npos ? lib : lib + kLib.size();
  if (version < file.size() && file[version] >= '0' && file[version] <= '9' &&
      file.find('/', version) != std::string_view::npos) {
    return "python";
  }
  return {};
}

bool folds_frames_of(std::string_view package) { return package == "torch" || package == "python"; }

std::string folded_frames(std::string_view package, std::size_t count) {
  return fmt::format("({} {} frame{})", count, package == "python" ? "standard-library" : package, count == 1 ? "" : "s");
}

}  // namespace ftdiag::facts
