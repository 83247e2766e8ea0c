// Reads what `ftdiag run` recorded in a run folder back into a RunEvidence.
//
// Tolerant by design: a journal cut mid-line (ftdiag was SIGKILLed), a line
// of garbage or an unreadable console.log costs only that line or file,
// recorded in the run's journal_problems; everything else is kept.
#pragma once

#include <filesystem>
#include <vector>

#include "base/fact.h"
#include "evidence/document.h"

namespace ftdiag::evidence {
class PhaseTable;
}  // namespace ftdiag::evidence
namespace ftdiag::parse {
class LineEventTable;
}  // namespace ftdiag::parse

namespace ftdiag::journal {

// True when PATH is a run folder (it holds journal.jsonl) or a job directory
// whose sub-folders are runs.
bool is_job_directory(const std::filesystem::path& path);

// One run folder. With `phases`, console lines that mark a training phase are
// summarised in console.phases. Missing when the journal cannot be opened.
// With `events`, launcher, scheduler and OOM-daemon lines are kept as
// console.events.
Fact<evidence::RunEvidence> read_run_directory(const std::filesystem::path& run_dir,
                                               const evidence::PhaseTable* phases = nullptr,
                                               const parse::LineEventTable* events = nullptr);

// Checks that FILE can be opened for reading and is a regular file, without
// blocking on a FIFO: the reason, precise, when not.
Fact<bool> check_regular_file(const std::filesystem::path& file);

}  // namespace ftdiag::journal
