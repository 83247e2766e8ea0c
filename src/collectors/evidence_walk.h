// The files under a path that a post-mortem collector may read: a bounded
// walk (depth, file count) that never follows directory symlinks and skips
// what is never evidence (version control, caches, installed packages,
// model weights in checkpoint folders) and the run folders of `ftdiag run`,
// which the journal collector reads whole.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace ftdiag::collectors {

struct WalkLimits {
  int max_depth = 6;              // folders below the path
  std::size_t max_files = 20000;  // the rest is counted, not listed
};

struct WalkResult {
  std::vector<std::filesystem::path> files;  // regular files, in a stable (sorted) order
  std::size_t files_not_listed = 0;          // past max_files
  std::vector<std::string> problems;         // folders that could not be read, and why
};

// A file given by itself is the result when it is regular.
WalkResult walk_evidence_files(const std::filesystem::path& path, const WalkLimits& limits = {});

// checkpoint-500, tmp-checkpoint-500, global_step500: a training
// checkpoint's folder (weights and optimizer states, not logs).
bool is_checkpoint_folder_name(const std::string& name);

}  // namespace ftdiag::collectors
