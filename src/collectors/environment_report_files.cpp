#include "collectors/environment_report_files.h"

#include <algorithm>
#include <array>
#include <string_view>

#include "base/read_file.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kBinaryCheckBytes = 64 * 1024;

bool skipped_folder(const fs::path& folder) {
  constexpr std::array kSkipped = std::to_array<std::string_view>({".git", "__pycache__", "site-packages", "node_modules"});
  const std::string name = folder.filename().string();
  if (std::find(kSkipped.begin(), kSkipped.end(), name) != kSkipped.end()) return true;
  std::error_code ec;
  return fs::exists(folder / "journal.jsonl", ec);
}

void walk(const fs::path& folder, int depth, std::vector<fs::path>& files) {
  std::error_code ec;
  for (fs::directory_iterator it(folder, ec), end; !ec && it != end && files.size() < kMaxReportFiles; it.increment(ec)) {
    const auto status = it->symlink_status(ec);
    if (ec) {
      ec.clear();
      continue;
    }
    if (fs::is_directory(status)) {
      if (depth < kMaxReportDepth && !skipped_folder(it->path())) walk(it->path(), depth + 1, files);
    } else if (fs::is_regular_file(status) || (fs::is_symlink(status) && fs::is_regular_file(it->path(), ec))) {
      files.push_back(it->path());
    }
    ec.clear();
  }
}

}  // namespace

std::vector<fs::path> report_candidate_files(const fs::path& path) {
  std::vector<fs::path> files;
  std::error_code ec;
  if (fs::is_regular_file(path, ec)) return {path};
  if (!fs::is_directory(path, ec) || skipped_folder(path)) return files;
  walk(path, 0, files);
  std::sort(files.begin(), files.end());
  return files;
}

Fact<std::string> read_text_head(const fs::path& file, std::size_t max_bytes) {
  // The check first, on a small read: a checkpoint shard is gigabytes of binary.
  auto head = read_small_file(file, std::min(max_bytes, kBinaryCheckBytes));
  if (!head) return head.missing();
  if (head.value().find('\0') != std::string::npos) return Missing{MissingReason::unparseable, file.string() + " is not text"};
  if (head.value().size() < kBinaryCheckBytes || max_bytes <= kBinaryCheckBytes) return head;
  return read_small_file(file, max_bytes);
}

}  // namespace ftdiag::collectors
