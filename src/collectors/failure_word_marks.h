// The failure words (rules/failure-words.json, docs/failure-words.md) on the
// last lines of each run's console: a plain log's are marked as it is
// scanned (log_file_scan.h); a run's console is read from its journal folder
// or kept by `ftdiag run` itself, and marked here, the same way, once read.
#pragma once

#include "evidence/document.h"

namespace ftdiag::evidence {
class FailureWords;
}

namespace ftdiag::collectors {

void mark_failure_words(evidence::EvidenceDocument& document, const evidence::FailureWords& words);

}  // namespace ftdiag::collectors
