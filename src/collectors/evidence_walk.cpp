#include "collectors/evidence_walk.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "evidence/job_directory.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool skipped_folder(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.empty() || name[0] == '.') return true;  // .git, .cache, .ipynb_checkpoints
  static const std::set<std::string> kNeverEvidence{"__pycache__", "node_modules", "site-packages", "dist-packages",
                                                     "venv", "env", "conda", "miniconda3", "anaconda3"};
  if (kNeverEvidence.count(name)) return true;
  if (is_checkpoint_folder_name(name)) return true;
  std::error_code ec;
  return fs::exists(dir / evidence::kJournalFileName, ec);  // a run folder of `ftdiag run`
}

}  // namespace

bool is_checkpoint_folder_name(const std::string& name) {
  for (std::string_view prefix : {"tmp-checkpoint-", "checkpoint-", "global_step"}) {
    if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        all_digits(std::string_view(name).substr(prefix.size()))) {
      return true;
    }
  }
  return false;
}

WalkResult walk_evidence_files(const fs::path& path, const WalkLimits& limits) {
  WalkResult result;
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (fs::is_regular_file(status)) {
    result.files.push_back(path);
    return result;
  }
  if (!fs::is_directory(status)) return result;
  std::vector<std::pair<fs::path, int>> pending{{path, 0}};
  while (!pending.empty()) {
    auto [dir, depth] = std::move(pending.back());
    pending.pop_back();
    std::vector<fs::path> files;
    std::vector<fs::path> dirs;
    fs::directory_iterator it(dir, ec);
    if (ec) {
      result.problems.push_back(dir.string() + ": " + ec.message());
      continue;
    }
    for (fs::directory_iterator end; it != end; it.increment(ec)) {
      if (ec) {
        result.problems.push_back(dir.string() + ": " + ec.message());
        break;
      }
      std::error_code entry_ec;
      const auto entry_status = it->symlink_status(entry_ec);
      if (fs::is_directory(entry_status)) {
        if (depth < limits.max_depth && !skipped_folder(it->path())) dirs.push_back(it->path());
      } else if (fs::is_regular_file(entry_status) || (fs::is_symlink(entry_status) && fs::is_regular_file(it->path(), entry_ec))) {
        files.push_back(it->path());
      }
    }
    std::sort(files.begin(), files.end());
    for (auto& file : files) {
      if (result.files.size() < limits.max_files) {
        result.files.push_back(std::move(file));
      } else {
        ++result.files_not_listed;
      }
    }
    std::sort(dirs.begin(), dirs.end(), std::greater<>());  // popped in name order
    for (auto& d : dirs) pending.emplace_back(std::move(d), depth + 1);
  }
  return result;
}

}  // namespace ftdiag::collectors
