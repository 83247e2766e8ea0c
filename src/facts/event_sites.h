// Where an event was printed (a CUDA out-of-memory error, a failed host
// allocation): each line of that kind in a run's console or a log file, with
// the last lines of that output and the line's place among them, so facts can
// read the traceback above it and point at the lines they came from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/document.h"
#include "parse/logs/python_traceback.h"

namespace ftdiag::facts {

// The event's line and the last lines of the output it is in. Views
// into the document, which must outlive it.
struct EventSite {
  const evidence::LogEvent* event = nullptr;
  std::string pointer;                  // of the event
  std::string tail_pointer;             // of the lines' tail
  std::vector<std::string_view> lines;  // the tail's texts, oldest first
  std::vector<char> streams;            // each line's stream (a plain log's are all 'o')
  std::optional<std::size_t> at;        // the event's line in the tail, when the tail reaches back to it
};

// Every line of `kind` in the job, runs' consoles first, then the logs, as
// the log.* facts order them.
std::vector<EventSite> sites_of(const evidence::EvidenceDocument& document, std::string_view kind);

// The Python frames of the traceback above the site's line, innermost first,
// read from the line's own stream (a run's console interleaves stdout and
// stderr as they were relayed); each frame's `index` is its line in the
// site's tail. Empty when the tail does not reach back to the line.
std::vector<parse::TracebackFrame> traceback_above(const EventSite& site);

}  // namespace ftdiag::facts
