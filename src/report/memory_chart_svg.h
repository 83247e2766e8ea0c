// The run's memory as SVG, for the HTML report: the job's memory cgroup
// usage and the sum of its processes' RSS (and the node's used RAM when no
// cgroup limit applies) over time, the cgroup's limit, the node's RAM and
// the estimate's predicted save peak as lines, the training phases as bands,
// every abnormal death as a marked line with its signal; GPU memory per
// device in a second chart; each process's peak RSS by its role and rank.
// Every element a test or a reader looks for carries data-series, data-phase
// or data-pid. Formats only.
#pragma once

#include <optional>
#include <string>

#include "evidence/document.h"
#include "facts/fact_set.h"

namespace ftdiag::report {

// Empty when the run has fewer than two memory readings.
std::string memory_chart_svg(const evidence::RunEvidence& run, const facts::FactSet& facts);
// Empty when no GPU was sampled.
std::string gpu_chart_svg(const evidence::RunEvidence& run);
// Empty when no process had a memory sample.
std::string process_peaks_svg(const evidence::RunEvidence& run);

}  // namespace ftdiag::report
