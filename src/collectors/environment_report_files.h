// The text files under a path that may hold an environment report, for
// collectors/environment_reports.h: PATH itself when it is a file, else the
// files the evidence walk lists below it (collectors/evidence_walk.h: likely
// evidence first, never through a link to a folder, skipping version
// control, caches, installed packages, checkpoints and ftdiag's own run
// folders), at most kMaxReportDepth folders down. Each is read through
// base/tree_reads.h: a link out of the tree or a file the tree's owner
// cannot read is refused, with the reason.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "base/fact.h"
#include "base/tree_reads.h"

namespace ftdiag::collectors {

inline constexpr int kMaxReportDepth = 4;
inline constexpr std::size_t kMaxReportFiles = 2000;            // files looked at under one path
inline constexpr std::size_t kMaxReportFileBytes = std::size_t{8} << 20;  // read of each file; the rest is left

// Sorted, so that the first report of a key is the same from run to run.
std::vector<std::filesystem::path> report_candidate_files(const std::filesystem::path& path);

// The file's first `max_bytes` when it is text: no NUL byte in its first
// 64 KiB (logs and reports never hold one; checkpoints, archives and
// binaries do). Missing with the reason when it cannot be read or is binary.
Fact<std::string> read_text_head(const TreeReads& tree, const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace ftdiag::collectors
