// What `ftdiag run` prints to stderr when the job ends, and `ftdiag analyze
// --format text` prints per run, under the verdict: how the job ended and
// the first process to die (with its role), the memory timeline, crashes,
// and where the record is; with style.verbose every abnormal death with its
// role and command, the memory peaks against their limits and the last
// gasp's stacks. Formats only; every number comes from the evidence.
#pragma once

#include <optional>
#include <string>

#include "evidence/document.h"
#include "report/text_layout.h"

namespace ftdiag::report {

// `incident`: the index in run.processes of the death the verdict judged,
// named as the first to die (else the earliest abnormal death is).
std::string render_run_summary(const evidence::RunEvidence& run, const std::string& run_path, const TextStyle& style,
                               std::optional<std::size_t> incident = std::nullopt);

}  // namespace ftdiag::report
