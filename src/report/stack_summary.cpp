#include "report/stack_summary.h"

#include <csignal>

#include <fmt/format.h>

#include "base/units.h"
#include "evidence/exit_status.h"
#include "facts/stack_text.h"
#include "parse/logs/faulthandler.h"

namespace ftdiag::report {

namespace {

constexpr std::size_t kCrashesShown = 3;
constexpr std::size_t kNativeFramesShown = 6;
constexpr std::size_t kPythonFramesShown = 5;

void append_crash(std::string& out, const evidence::CrashEvidence& crash) {
  std::string what = crash.signal ? evidence::signal_name(*crash.signal) : std::string("a crash");
  if (crash.fault_address && crash.signal && (*crash.signal == SIGSEGV || *crash.signal == SIGBUS)) {
    what += fmt::format(" at {:#x}", *crash.fault_address);
  }
  out += fmt::format("  crash: pid {}{} {} ({})\n", crash.pid.value_or(0),
                     crash.thread.empty() ? "" : fmt::format(" thread {}", crash.thread), what,
                     crash.source == "core" ? "from its core" : crash.source == "faulthandler" ? "Python's faulthandler" : "the crash handler");
  if (!crash.frames.empty()) {
    out += "    native: " + facts::stack_text(crash.frames, kNativeFramesShown) + "\n";
  }
  for (const auto& thread : crash.python) {
    if (!thread.current || thread.frames.empty()) continue;
    out += "    python: " + facts::stack_text(facts::job_frames(thread.frames), kPythonFramesShown) + "\n";
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
      out += fmt::format("    pid {}: {}\n", stacks.pid, facts::stack_text(facts::job_frames(thread.frames), kPythonFramesShown));
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
