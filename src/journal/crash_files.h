// The files the probes inside the job's processes write to the run folder
// (docs/probes.md): crash records of the native crash handler
// ("crash.<pid>.txt") and Python's faulthandler dumps
// ("python-faults.<pid>.txt"), read into one CrashEvidence per process
// (evidence/crash_evidence.h). Frames are addresses with their module and
// file offset here; naming them is the symbolizer's
// (collectors/crash_symbols.h).
#pragma once

#include <filesystem>
#include <vector>

#include "evidence/crash_evidence.h"
#include "evidence/document.h"

namespace ftdiag::journal {

inline constexpr const char* kCrashRecordPrefix = "crash.";
inline constexpr const char* kPythonFaultsPrefix = "python-faults.";
// More crashed processes than this in one run (every DataLoader worker of
// every rank) are summed up in the first crash's problems.
inline constexpr std::size_t kMaxCrashesPerRun = 64;

// Never throws; a file that cannot be read is a crash with its problem.
std::vector<evidence::CrashEvidence> read_crash_files(const std::filesystem::path& run_dir);

}  // namespace ftdiag::journal
