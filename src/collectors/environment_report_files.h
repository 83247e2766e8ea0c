// The text files under a path that may hold an environment report, for
// collectors/environment_reports.h: PATH itself when it is a file, else the
// regular files below it, at most kMaxReportDepth folders down, never
// through a link to a folder (loops), skipping what holds no report of the
// job: version control, caches, installed packages, and ftdiag's own run
// folders (a journal.jsonl beside them: the journal collector reads those).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"

namespace ftdiag::collectors {

inline constexpr int kMaxReportDepth = 4;
inline constexpr std::size_t kMaxReportFiles = 2000;            // files looked at under one path
inline constexpr std::size_t kMaxReportFileBytes = std::size_t{8} << 20;  // read of each file; the rest is left

// Sorted, so that the first report of a key is the same from run to run.
std::vector<std::filesystem::path> report_candidate_files(const std::filesystem::path& path);

// The file's first `max_bytes` when it is text: no NUL byte in its first
// 64 KiB (logs and reports never hold one; checkpoints, archives and
// binaries do). Missing with the reason when it cannot be read or is binary.
Fact<std::string> read_text_head(const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace ftdiag::collectors
