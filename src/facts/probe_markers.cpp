#include "facts/probe_markers.h"

#include <map>
#include <vector>

namespace ftdiag::facts {

namespace {

// A begin marker arrives a moment after the call began; a death is seen a
// moment after it happened.
constexpr double kClockSlack = 0.5;

// Per pid, the begin markers not yet ended at `time`, outermost first.
std::map<int, std::vector<std::size_t>> open_at(const evidence::RunEvidence& run, double time) {
  std::map<int, std::vector<std::size_t>> open;
  for (std::size_t i = 0; i < run.probe_markers.size(); ++i) {
    const auto& marker = run.probe_markers[i];
    if (marker.time > time + kClockSlack) continue;
    auto& stack = open[marker.pid];
    if (marker.marker == "begin") {
      stack.push_back(i);
    } else if (marker.marker == "end") {
      // Ends the innermost open call of the same name (calls nest).
      for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        if (run.probe_markers[*it].what == marker.what) {
          stack.erase(std::next(it).base());
          break;
        }
      }
    }
  }
  return open;
}

OpenCall call_of(const evidence::RunEvidence& run, const std::vector<std::size_t>& stack) {
  const auto& outer = run.probe_markers[stack.front()];
  OpenCall call{outer.phase, outer.what, "", outer.time, outer.pid, outer.rank, stack.front()};
  if (stack.size() > 1) call.inner = run.probe_markers[stack.back()].what;
  return call;
}

}  // namespace

std::optional<OpenCall> open_call_at(const evidence::RunEvidence& run, std::optional<int> pid, double time) {
  if (run.probe_markers.empty()) return std::nullopt;
  const auto open = open_at(run, time);
  if (pid) {
    if (auto it = open.find(*pid); it != open.end() && !it->second.empty()) return call_of(run, it->second);
  }
  // The earliest open call of any process: the one the others joined.
  std::optional<OpenCall> earliest;
  for (const auto& [p, stack] : open) {
    if (stack.empty()) continue;
    auto call = call_of(run, stack);
    if (!earliest || call.began < earliest->began) earliest = std::move(call);
  }
  return earliest;
}

}  // namespace ftdiag::facts
