// Where a CUDA out-of-memory error was printed: each "cuda-oom" line of a
// run's console or of a log file, with the last lines of that output and the
// line's place among them, so facts can read the traceback above it and point
// at the lines they came from.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::facts {

// The out-of-memory line and the last lines of the output it is in. Views
// into the document, which must outlive it.
struct OomSite {
  const evidence::LogEvent* event = nullptr;
  std::string pointer;                  // of the event
  std::string tail_pointer;             // of the lines' tail
  std::vector<std::string_view> lines;  // the tail's texts, oldest first
  std::vector<char> streams;            // each line's stream (a plain log's are all 'o')
  std::optional<std::size_t> at;        // the event's line in the tail, when the tail reaches back to it
};

// Every cuda-oom line of the job, runs' consoles first, then the logs, as
// log.cuda_oom orders them.
std::vector<OomSite> oom_sites(const evidence::EvidenceDocument& document);

}  // namespace ftdiag::facts
