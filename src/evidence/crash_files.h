// The files the probes inside the job's processes write to the run folder
// (docs/probes.md): crash records of the native crash handler
// ("crash.<pid>.txt") and Python's faulthandler dumps
// ("python-faults.<pid>.txt"), read into one CrashEvidence per process.
// Frames are addresses with their module and file offset here; naming them
// is the symbolizer's (collectors/crash_symbols.h).
#pragma once

#include <filesystem>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::evidence {

inline constexpr const char* kCrashRecordPrefix = "crash.";
inline constexpr const char* kPythonFaultsPrefix = "python-faults.";
// More crashed processes than this in one run (every DataLoader worker of
// every rank) are summed up in the first crash's problems.
inline constexpr std::size_t kMaxCrashesPerRun = 64;

// Never throws; a file that cannot be read is a crash with its problem.
std::vector<CrashEvidence> read_crash_files(const std::filesystem::path& run_dir);

// One crash record's text as evidence (for a record named on the command line too).
CrashEvidence crash_from_record(std::string_view text, const Provenance& from);

}  // namespace ftdiag::evidence
