#include "collectors/crash_symbols.h"

#include <algorithm>

#include <fmt/format.h>

namespace ftdiag::collectors {

namespace {

// The named frames of one native frame: inlined calls first, then the
// function they were inlined into, all at the same address.
void append_named(const symbolize::NativeFrame& native, std::vector<evidence::StackFrame>& frames) {
  evidence::StackFrame base;
  base.language = "native";
  base.address = native.address;
  base.object = native.module;
  if (!native.module.empty()) base.offset = native.module_offset;
  if (native.places.empty()) {
    frames.push_back(std::move(base));
    return;
  }
  for (const auto& place : native.places) {
    evidence::StackFrame named = base;
    named.function = place.function;
    named.file = place.file;
    if (place.line) named.line = static_cast<std::uint64_t>(*place.line);
    named.inlined = place.inlined;
    frames.push_back(std::move(named));
  }
}

}  // namespace

void symbolize_crash(evidence::CrashEvidence& crash, symbolize::ModuleSymbols& symbols) {
  if (crash.frames.empty()) return;
  std::vector<std::uint64_t> addresses;
  for (const auto& frame : crash.frames) {
    if (frame.language != "native" || !frame.address) return;  // named already, or not ours to name
    addresses.push_back(*frame.address);
  }
  std::vector<symbolize::MappedRange> maps;
  for (const auto& module : crash.modules) maps.push_back({module.start, module.end, module.file_offset, module.path});
  std::vector<symbolize::NativeFrame> named;
  try {
    named = symbolize::symbolize_stack(addresses, maps, symbols);
  } catch (const std::exception& e) {
    crash.symbolized = std::string("not named: ") + e.what();
    return;
  }
  const auto resolved = static_cast<std::size_t>(
      std::count_if(named.begin(), named.end(), [](const symbolize::NativeFrame& f) { return f.resolved(); }));
  crash.frames = evidence_frames(named);
  crash.symbolized = resolved == named.size()
                         ? "every frame named"
                         : fmt::format("{} of {} frames named; the others stay as module and offset (no symbols for that "
                                       "place, the module is not on this disk, or the time budget ran out)",
                                       resolved, named.size());
}

std::vector<evidence::StackFrame> evidence_frames(const std::vector<symbolize::NativeFrame>& named) {
  std::vector<evidence::StackFrame> frames;
  for (const auto& frame : named) append_named(frame, frames);
  return frames;
}

void symbolize_crashes(evidence::EvidenceDocument& document, symbolize::ModuleSymbols& symbols) {
  for (auto& host : document.hosts) {
    for (auto& run : host.runs) {
      for (auto& crash : run.crashes) symbolize_crash(crash, symbols);
    }
    for (auto& crash : host.crashes) symbolize_crash(crash, symbols);
  }
}

}  // namespace ftdiag::collectors
