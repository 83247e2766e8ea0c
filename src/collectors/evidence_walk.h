// The files under a path that a post-mortem collector may read: a bounded
// walk (depth, file count) that never follows links to folders and skips
// what is never evidence (version control, caches, installed packages,
// model weights in checkpoint folders) and the run folders of `ftdiag run`,
// which the journal collector reads whole. Folders are listed through
// base/tree_reads.h: beneath the path's open descriptor, never through a
// link.
//
// The budget of files goes to likely evidence first: files named like
// evidence (*.log, *.out, *.err, console.log, journal.jsonl, ds_config*.json,
// environment reports, core*) before others, and near the root before deep
// down. A folder of more than kCrowdedFolderFiles files (a dataset, a cache,
// wandb media) is data, not logs: only its files named like evidence are
// listed, the rest counted. What was not listed is said, with the folders
// that held most of it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ftdiag::collectors {

struct WalkLimits {
  int max_depth = 6;              // folders below the path
  std::size_t max_files = 20000;  // the rest is counted, not listed
};

inline constexpr std::size_t kCrowdedFolderFiles = 1000;
// Entries looked at in all, whatever the limits: a tree this large is not a job's folder.
inline constexpr std::size_t kMaxWalkListed = 400000;

struct WalkResult {
  std::vector<std::filesystem::path> files;  // regular files and links to them, in a stable (sorted) order
  std::size_t files_not_listed = 0;          // past max_files, or data in a crowded folder
  // The folders whose files were not listed, most first, with how many.
  std::vector<std::pair<std::filesystem::path, std::size_t>> not_listed_in;
  std::vector<std::string> problems;  // folders that could not be read, and why
};

// A file given by itself is the result when it is regular.
WalkResult walk_evidence_files(const std::filesystem::path& path, const WalkLimits& limits = {});

// "25000 files not read: most under data (25000), .../media (12)"; empty when all were listed.
std::string describe_not_listed(const WalkResult& walk, const std::filesystem::path& path);

// Whether a file's name says it is likely evidence (a log, a journal, a
// launcher config, an environment report, a core).
bool named_like_evidence(const std::string& name);

// checkpoint-500, tmp-checkpoint-500, global_step500: a training
// checkpoint's folder (weights and optimizer states, not logs).
bool is_checkpoint_folder_name(const std::string& name);

}  // namespace ftdiag::collectors
