// The short text `ftdiag run` prints to stderr when the job ends, and
// `ftdiag analyze --format text` prints per run: how each process ended, the
// memory peaks against their limits, and where the record is. Formats only;
// every number comes from the evidence.
#pragma once

#include <string>

#include "evidence/document.h"

namespace ftdiag::report {

std::string render_run_summary(const evidence::RunEvidence& run, const std::string& run_path);

}  // namespace ftdiag::report
