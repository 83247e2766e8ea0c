// Reads what `ftdiag run` recorded back into an evidence document.
//
// Tolerant by design: a journal cut mid-line (ftdiag was SIGKILLed), a line
// of garbage or an unreadable console.log costs only that line or file,
// recorded in the run's journal_problems; everything else is kept.
#pragma once

#include <filesystem>

#include "base/fact.h"
#include "evidence/document.h"

namespace ftdiag::evidence {

inline constexpr std::size_t kConsoleTailLines = 200;
inline constexpr std::size_t kMaxPhaseStretches = 1000;

class PhaseTable;

// PATH is a run folder (it holds journal.jsonl) or a job directory whose
// sub-folders are runs (several ranks or nodes). Missing when PATH holds no
// journal at all, or cannot be read.
// With `phases`, console lines that mark a training phase are summarised in
// each run's console.phases.
Fact<EvidenceDocument> read_job_directory(const std::filesystem::path& path, const PhaseTable* phases = nullptr);

// True when PATH looks like something `ftdiag run` wrote.
bool is_job_directory(const std::filesystem::path& path);

// One run folder.
Fact<RunEvidence> read_run_directory(const std::filesystem::path& run_dir, const PhaseTable* phases = nullptr);

}  // namespace ftdiag::evidence
