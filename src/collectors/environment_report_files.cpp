#include "collectors/environment_report_files.h"

#include <algorithm>

#include "base/read_file.h"
#include "collectors/evidence_walk.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBinaryCheckBytes = 64 * 1024;

// A run folder of `ftdiag run` (it holds journal.jsonl) is the journal
// collector's: its console.log is the job's output, and the environment it
// records is read from environment.json, not from text that looks like a report.
bool is_run_folder(const fs::path& folder) {
  std::error_code ec;
  return fs::is_regular_file(fs::symlink_status(folder / "journal.jsonl", ec));
}

bool inside_run_folder(const fs::path& root, const fs::path& file) {
  for (fs::path folder = file.parent_path(); !folder.empty(); folder = folder.parent_path()) {
    if (is_run_folder(folder)) return true;
    if (folder == root || folder == folder.parent_path()) break;
  }
  return false;
}

}  // namespace

std::vector<fs::path> report_candidate_files(const fs::path& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec) && is_run_folder(path)) return {};
  auto files = walk_evidence_files(path, WalkLimits{.max_depth = kMaxReportDepth, .max_files = kMaxReportFiles}).files;
  std::erase_if(files, [&](const fs::path& file) { return inside_run_folder(path, file); });
  return files;
}

Fact<std::string> read_text_head(const TreeReads& tree, const fs::path& file, std::size_t max_bytes) {
  auto fd = tree.open_file(file);
  if (!fd) return fd.missing();
  // The check first, on a small read: a checkpoint shard is gigabytes of binary.
  auto head = read_small_file_fd(fd->get(), file.string(), std::min(max_bytes, kBinaryCheckBytes));
  if (!head) return head.missing();
  if (head.value().find('\0') != std::string::npos) return Missing{MissingReason::unparseable, file.string() + " is not text"};
  if (head.value().size() < kBinaryCheckBytes || max_bytes <= kBinaryCheckBytes) return head;
  auto rest = read_small_file_fd(fd->get(), file.string(), max_bytes - head.value().size());
  if (!rest) return rest.missing();
  return head.value() + rest.value();
}

}  // namespace ftdiag::collectors
