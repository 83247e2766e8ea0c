#include "collectors/evidence_walk.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <deque>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/tree_reads.h"
#include "evidence/job_directory.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); });
}

bool skipped_folder(const std::string& name) {
  if (name.empty() || name[0] == '.') return true;  // .git, .cache, .ipynb_checkpoints
  static const std::set<std::string> kNeverEvidence{"__pycache__", "node_modules", "site-packages", "dist-packages",
                                                     "venv", "env", "conda", "miniconda3", "anaconda3"};
  return kNeverEvidence.count(name) > 0 || is_checkpoint_folder_name(name);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

// A file found, with what ranks it: likely evidence first, then nearer the
// root, then by name.
struct Found {
  bool evidence;
  int depth;
  fs::path path;
  fs::path folder;
};

struct Pending {
  fs::path folder;
  int depth;
};

}  // namespace

bool named_like_evidence(const std::string& file_name) {
  const std::string name = lower(file_name);
  for (std::string_view suffix : {".log", ".out", ".err", ".stdout", ".stderr"}) {
    if (name.ends_with(suffix)) return true;
  }
  if (name == evidence::kJournalFileName || name == "nohup.out" || name == "core" || name.starts_with("core.")) return true;
  if (name.starts_with("ds_config") || name.starts_with("slurm-")) return true;
  static constexpr std::array<std::string_view, 6> kReportHints = {"env_report", "environment", "collect_env", "ds_report",
                                                                  "nvidia-smi", "nvidia_smi"};
  return std::any_of(kReportHints.begin(), kReportHints.end(), [&](std::string_view hint) { return name.find(hint) != std::string::npos; });
}

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
  auto tree = TreeReads::open(path);
  if (!tree) return result;
  if (!tree->is_folder()) {
    std::error_code ec;
    if (fs::is_regular_file(path, ec)) result.files.push_back(path);
    return result;
  }
  std::vector<Found> found;
  std::map<fs::path, std::size_t> crowded;  // data files not listed, by folder
  std::size_t listed = 0;
  // Breadth first: what lies near the root is found before the budget of
  // entries can run out in a deep cache.
  std::deque<Pending> pending{{path, 0}};
  while (!pending.empty() && listed < kMaxWalkListed) {
    const Pending at = std::move(pending.front());
    pending.pop_front();
    auto entries = tree->list(at.folder);
    if (!entries) {
      result.problems.push_back(entries.missing().detail);
      continue;
    }
    listed += entries->size();
    const bool run_folder = at.depth > 0 && std::any_of(entries->begin(), entries->end(), [](const TreeReads::Entry& e) {
      return e.name == evidence::kJournalFileName;
    });
    if (run_folder) continue;  // a run folder of `ftdiag run`: the journal collector's
    std::size_t files = 0;
    for (const auto& entry : *entries) files += entry.kind != TreeReads::Kind::folder;
    const bool crowd = files > kCrowdedFolderFiles;
    std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const auto& entry : *entries) {
      const fs::path child = at.folder / entry.name;
      if (entry.kind == TreeReads::Kind::folder) {
        if (at.depth < limits.max_depth && !skipped_folder(entry.name)) pending.push_back({child, at.depth + 1});
      } else if (entry.kind == TreeReads::Kind::file || entry.kind == TreeReads::Kind::link_to_file) {
        const bool evidence = named_like_evidence(entry.name);
        if (crowd && !evidence) {
          ++crowded[at.folder];
          ++result.files_not_listed;
          continue;
        }
        found.push_back({evidence, at.depth, child, at.folder});
      }
    }
  }
  if (listed >= kMaxWalkListed) {
    result.problems.push_back(fmt::format("{}: more than {} entries, the rest not looked at", path.string(), kMaxWalkListed));
  }
  // The budget goes to likely evidence first, then to what lies nearest the root.
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.evidence != b.evidence) return a.evidence;
    return a.depth < b.depth;
  });
  for (auto& file : found) {
    if (result.files.size() < limits.max_files) {
      result.files.push_back(std::move(file.path));
    } else {
      ++result.files_not_listed;
      ++crowded[file.folder];
    }
  }
  std::sort(result.files.begin(), result.files.end());
  result.not_listed_in.assign(crowded.begin(), crowded.end());
  std::stable_sort(result.not_listed_in.begin(), result.not_listed_in.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return result;
}

std::string describe_not_listed(const WalkResult& walk, const fs::path& path) {
  if (walk.files_not_listed == 0) return {};
  std::string where;
  for (std::size_t i = 0; i < walk.not_listed_in.size() && i < 3; ++i) {
    const auto& [folder, count] = walk.not_listed_in[i];
    where += fmt::format("{}{} ({})", where.empty() ? "" : ", ", folder.lexically_relative(path).string(), count);
  }
  return fmt::format("{} files under {} not read (data in folders of more than {} files, or past the {} files read): most under {}",
                     walk.files_not_listed, path.string(), kCrowdedFolderFiles, WalkLimits{}.max_files, where);
}

}  // namespace ftdiag::collectors
