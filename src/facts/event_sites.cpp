#include "facts/event_sites.h"

#include <fmt/format.h>

namespace ftdiag::facts {

namespace {

// A run's console has no line numbers: the line is the one printed at the
// event's time with its text (the event's text may be cut, so a prefix).
std::optional<std::size_t> console_line_of(const evidence::ConsoleEvidence& console, const evidence::LogEvent& event) {
  for (std::size_t i = console.tail.size(); i-- > 0;) {
    const auto& line = console.tail[i];
    if (event.time && line.time == *event.time && line.text.compare(0, event.text.size(), event.text) == 0) return i;
  }
  return std::nullopt;
}

// A plain log's lines carry their numbers.
std::optional<std::size_t> log_line_of(const evidence::LogFileEvidence& log, const evidence::LogEvent& event) {
  for (std::size_t i = log.tail.size(); i-- > 0;) {
    if (event.from.line && log.tail[i].line_number == *event.from.line) return i;
  }
  return std::nullopt;
}

}  // namespace

std::vector<EventSite> sites_of(const evidence::EvidenceDocument& document, std::string_view kind) {
  std::vector<EventSite> sites;
  evidence::for_each_run(document, [&](const evidence::RunRef& ref, const evidence::RunEvidence& run) {
    for (std::size_t i = 0; i < run.console.events.size(); ++i) {
      const auto& event = run.console.events[i];
      if (event.kind != kind) continue;
      EventSite site{&event, fmt::format("{}/console/events/{}", ref.pointer(), i), ref.pointer() + "/console/tail", {}, {}, {}};
      for (const auto& line : run.console.tail) {
        site.lines.push_back(line.text);
        site.streams.push_back(line.stream);
      }
      site.at = console_line_of(run.console, event);
      sites.push_back(std::move(site));
    }
  });
  for (std::size_t h = 0; h < document.hosts.size(); ++h) {
    for (std::size_t f = 0; f < document.hosts[h].logs.size(); ++f) {
      const auto& log = document.hosts[h].logs[f];
      for (std::size_t i = 0; i < log.events.size(); ++i) {
        if (log.events[i].kind != kind) continue;
        EventSite site{&log.events[i], fmt::format("/hosts/{}/logs/{}/events/{}", h, f, i), fmt::format("/hosts/{}/logs/{}/tail", h, f), {}, {}, {}};
        for (const auto& line : log.tail) site.lines.push_back(line.text);
        site.streams.assign(site.lines.size(), 'o');
        site.at = log_line_of(log, log.events[i]);
        sites.push_back(std::move(site));
      }
    }
  }
  return sites;
}

std::vector<parse::TracebackFrame> traceback_above(const EventSite& site) {
  if (!site.at) return {};
  std::vector<std::string_view> lines;
  std::vector<std::size_t> in_tail;
  for (std::size_t i = 0; i <= *site.at; ++i) {
    if (site.streams[i] != site.streams[*site.at]) continue;
    lines.push_back(site.lines[i]);
    in_tail.push_back(i);
  }
  auto frames = parse::traceback_frames_above(lines, lines.size() - 1);
  for (auto& frame : frames) frame.index = in_tail[frame.index];
  return frames;
}

}  // namespace ftdiag::facts
