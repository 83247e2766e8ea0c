// A run's memory in two lines of text: a sparkline of the job's memory (its
// cgroup's usage, else the sum of its processes' RSS) against the ceiling
// that kills (the cgroup's limit, else the node's RAM), and under it the
// training phase of each moment (load, data, train, eval, save) with the
// first abnormal death marked. Formats only; the numbers are the evidence's.
#pragma once

#include <optional>
#include <string>

#include "evidence/document.h"
#include "report/text_layout.h"

namespace ftdiag::report {

// Empty when the run has fewer than three memory readings. The death marked
// is run.processes[incident]'s when given, else the earliest abnormal one.
std::string render_memory_timeline(const evidence::RunEvidence& run, const TextStyle& style, std::string_view indent,
                                   std::optional<std::size_t> incident = std::nullopt);

}  // namespace ftdiag::report
