// What the probes' crash files say, as evidence: a crash record of the
// native crash handler (parse/probes/crash_record.h) and Python's
// faulthandler dumps (parse/logs/faulthandler.h) become a CrashEvidence.
// The files are read from a run folder by journal/crash_files.h.
#pragma once

#include <string_view>

#include "evidence/document.h"
#include "parse/logs/faulthandler.h"

namespace ftdiag::evidence {

// One crash record's text as evidence (for a record named on the command line too).
CrashEvidence crash_from_record(std::string_view text, const Provenance& from);

// Adds a faulthandler dump's threads and extension modules to a crash, and
// its signal when the crash has none yet.
void add_python_dump(CrashEvidence& crash, const parse::FaulthandlerDump& dump);

}  // namespace ftdiag::evidence
