#include "report/stack_summary.h"

#include <fmt/format.h>

#include "base/units.h"
#include "evidence/exit_status.h"
#include "parse/faulthandler.h"

namespace ftdiag::report {

namespace {

constexpr std::size_t kCrashesShown = 3;
constexpr std::size_t kNativeFramesShown = 6;
constexpr std::size_t kPythonFramesShown = 5;

std::string file_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string place_of(const evidence::StackFrame& frame) {
  if (!frame.function.empty()) {
    if (!frame.file.empty() && frame.line) return fmt::format("{} ({}:{})", frame.function, file_name(frame.file), *frame.line);
    return fmt::format("{} ({})", frame.function, file_name(frame.object));
  }
  if (!frame.object.empty() && frame.offset) return fmt::format("{}+{:#x}", file_name(frame.object), *frame.offset);
  return frame.address ? fmt::format("{:#x}", *frame.address) : std::string("?");
}

template <class Frames, class Place>
std::string chain(const Frames& frames, std::size_t shown, Place place) {
  std::string text;
  std::size_t count = 0;
  for (const auto& frame : frames) {
    if (count == shown) {
      text += fmt::format(" <- ... ({} more)", frames.size() - shown);
      break;
    }
    if (count++) text += " <- ";
    text += place(frame);
  }
  return text;
}

void append_crash(std::string& out, const evidence::CrashEvidence& crash) {
  std::string what = crash.signal ? evidence::signal_name(*crash.signal) : std::string("a crash");
  if (crash.fault_address && crash.signal && (*crash.signal == 11 || *crash.signal == 7)) {
    what += fmt::format(" at {:#x}", *crash.fault_address);
  }
  out += fmt::format("  crash: pid {}{} {} ({})\n", crash.pid.value_or(0),
                     crash.thread.empty() ? "" : fmt::format(" thread {}", crash.thread), what,
                     crash.source == "core" ? "from its core" : crash.source == "faulthandler" ? "Python's faulthandler" : "the crash handler");
  if (!crash.frames.empty()) {
    out += "    native: " + chain(crash.frames, kNativeFramesShown, [](const evidence::StackFrame& f) { return place_of(f); }) + "\n";
  }
  for (const auto& thread : crash.python) {
    if (!thread.current || thread.frames.empty()) continue;
    out += "    python: " + chain(thread.frames, kPythonFramesShown, [](const evidence::StackFrame& f) { return place_of(f); }) + "\n";
  }
}

void append_gasp(std::string& out, const evidence::RunEvidence& run) {
  const auto& gasp = run.last_gasps.back();
  out += fmt::format("  last gasp at +{}: {}\n", format_duration(gasp.time - run.started.time), gasp.reason);
  for (const auto& stacks : run.python_stacks) {
    if (stacks.time < gasp.time) continue;
    const auto dump = parse::read_requested_dump(stacks.text);
    if (!dump) continue;
    for (const auto& thread : dump->threads) {
      if (!thread.current || thread.frames.empty()) continue;
      std::vector<parse::PythonFrame> frames;
      for (const auto& frame : thread.frames) {
        // The probe's own wrapper of a framework call is not the job's code.
        if (frame.file.find("/ftdiag_probe/") == std::string::npos) frames.push_back(frame);
      }
      out += fmt::format("    pid {}: {}\n", stacks.pid, chain(frames, kPythonFramesShown, [](const parse::PythonFrame& f) {
                           return f.line ? fmt::format("{} ({}:{})", f.function, file_name(f.file), *f.line)
                                         : fmt::format("{} ({})", f.function, file_name(f.file));
                         }));
    }
  }
}

}  // namespace

void append_stacks(std::string& out, const evidence::RunEvidence& run) {
  for (std::size_t i = 0; i < run.crashes.size() && i < kCrashesShown; ++i) append_crash(out, run.crashes[i]);
  if (run.crashes.size() > kCrashesShown) {
    out += fmt::format("  ... and {} more crashed process(es) (ftdiag analyze --format json)\n", run.crashes.size() - kCrashesShown);
  }
  if (!run.last_gasps.empty()) append_gasp(out, run);
}

}  // namespace ftdiag::report
