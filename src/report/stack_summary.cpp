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

void append_crash(std::string& out, const evidence::CrashEvidence& crash, const TextStyle& style) {
  std::string what = crash.signal ? evidence::signal_name(*crash.signal) : std::string("a crash");
  if (crash.fault_address && crash.signal && (*crash.signal == SIGSEGV || *crash.signal == SIGBUS)) {
    what += fmt::format(" at {:#x}", *crash.fault_address);
  }
  out += wrap(fmt::format("crash: pid {}{} {} ({})", crash.pid.value_or(0), crash.thread.empty() ? "" : fmt::format(" thread {}", crash.thread),
                          what, crash.source == "core" ? "from its core" : crash.source == "faulthandler" ? "Python's faulthandler" : "the crash handler"),
              style.width, "  ", "    ");
  if (!crash.frames.empty()) {
    out += wrap("native: " + facts::stack_text(crash.frames, kNativeFramesShown), style.width, "    ", "      ");
  }
  for (const auto& thread : crash.python) {
    if (!thread.current || thread.frames.empty()) continue;
    out += wrap("python: " + facts::stack_text(facts::job_frames(thread.frames), kPythonFramesShown), style.width, "    ", "      ");
  }
}

void append_gasp(std::string& out, const evidence::RunEvidence& run, const TextStyle& style) {
  const auto& gasp = run.last_gasps.back();
  out += wrap(fmt::format("last gasp at +{}: {}", format_duration(gasp.time - run.started.time), gasp.reason), style.width, "  ", "    ");
  for (const auto& stacks : run.python_stacks) {
    if (stacks.time < gasp.time) continue;
    const auto dump = parse::read_requested_dump(stacks.text);
    if (!dump) continue;
    for (const auto& thread : dump->threads) {
      if (!thread.current || thread.frames.empty()) continue;
      out += wrap(fmt::format("pid {}: {}", stacks.pid, facts::stack_text(facts::job_frames(thread.frames), kPythonFramesShown)), style.width,
                  "    ", "      ");
    }
  }
}

}  // namespace

void append_stacks(std::string& out, const evidence::RunEvidence& run, const TextStyle& style) {
  const std::size_t shown = style.verbose ? kCrashesShown : 1;
  for (std::size_t i = 0; i < run.crashes.size() && i < shown; ++i) append_crash(out, run.crashes[i], style);
  if (run.crashes.size() > shown) {
    out += fmt::format("  ... and {} more crashed process(es) ({})\n", run.crashes.size() - shown, style.verbose ? "--format json" : "--verbose");
  }
  if (style.verbose && !run.last_gasps.empty()) append_gasp(out, run, style);
}

}  // namespace ftdiag::report
