// The stacks of a run in a few lines each, for the summary `ftdiag run`
// prints when the job ends and `ftdiag analyze` prints per run: where each
// crashed process was (native frames, then its Python frames), and what the
// last gasp before an OOM kill caught the job running. The whole stacks are
// in the evidence (`--format json`). Formats only.
#pragma once

#include <string>

#include "evidence/document.h"
#include "report/text_layout.h"

namespace ftdiag::report {

// Appends nothing when the run has no crash and no gasp; the gasp's stacks
// only with style.verbose (the verdict names the code it caught).
void append_stacks(std::string& out, const evidence::RunEvidence& run, const TextStyle& style);

}  // namespace ftdiag::report
