// The names of the files `ftdiag run` writes into a run folder, spelled once
// for the writers that create them and the readers that look for them.
#pragma once

namespace ftdiag::evidence {

inline constexpr const char* kJournalFileName = "journal.jsonl";
inline constexpr const char* kConsoleFileName = "console.log";

}  // namespace ftdiag::evidence
