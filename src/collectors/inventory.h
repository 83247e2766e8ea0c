// What a PATH the user gave holds, from one bounded walk. `ftdiag analyze`
// takes the inventory of each PATH once; every post-mortem collector claims
// the entries it reads from it (a log, a kernel log, a config, a checkpoint
// folder, a run folder), so a tree is listed once, with one skip table and
// one set of limits.
//
// The walk:
// - lists folders through base/tree_reads.h, beneath the PATH's open
//   descriptor, and never follows a link to a folder: a link loop costs
//   nothing, a folder swapped for a link leads nowhere else;
// - is breadth first, each folder's entries in name order, at most
//   `max_depth` folders down and kMaxWalkListed entries in all;
// - passes over what never holds a job's evidence (version control, caches,
//   installed packages and virtual environments, hidden folders other than
//   Hydra's `.hydra`), see `is_passed_over`;
// - does not enter a run folder of `ftdiag run` (it holds journal.jsonl; the
//   journal collector reads it whole) nor a checkpoint folder (its direct
//   files are listed, for trainer_state.json and the checkpoint's scan);
// - spends its budget of files on likely evidence first: files named like
//   evidence (*.log, *.out, journal.jsonl, ds_config*, environment reports,
//   core*) before others, near the root before deep down. A folder of more
//   than kCrowdedFolderFiles files (a dataset, a cache) is data: only its
//   files named like evidence are listed, the rest counted. What was not
//   listed is said, with the folders that held most of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/fact.h"
#include "base/tree_reads.h"

namespace ftdiag::collectors {

struct InventoryLimits {
  int max_depth = 6;              // folders below the path
  std::size_t max_files = 20000;  // files listed; the rest is counted
};

inline constexpr std::size_t kCrowdedFolderFiles = 1000;
// Entries looked at in all, whatever the limits: a tree this large is not a job's folder.
inline constexpr std::size_t kMaxWalkListed = 400000;
// What `head` reads of a file, after any NULs at its start.
inline constexpr std::size_t kHeadBytes = 4096;

struct InventoryFile {
  std::filesystem::path path;
  int depth = 0;                     // folders between the PATH and the file (0: directly in it)
  bool named_like_evidence = false;  // see named_like_evidence()
  bool in_checkpoint = false;        // directly in a checkpoint folder
  std::size_t visit = 0;             // breadth-first order: folder by folder, each in name order
  std::size_t rank = 0;              // the walk's budget order: likely evidence first, then near the root
};

// A file's first kHeadBytes. A log that logrotate's copytruncate emptied
// starts with its old length in NULs (a hole where the filesystem keeps it
// sparse): they are skipped (holes for free with SEEK_DATA, written NULs up
// to 16 MiB) and counted in nul_head.
struct FileHead {
  std::string text;
  std::uint64_t nul_head = 0;
};

class Inventory {
 public:
  // Never throws beyond allocation. A PATH that cannot be opened gives an
  // empty inventory whose `tree()` is missing with the reason.
  static Inventory of(const std::filesystem::path& path, const InventoryLimits& limits = {});

  const std::filesystem::path& root() const { return root_; }
  // The reader of the tree's files, Missing when the PATH could not be opened.
  const Fact<TreeReads>& tree() const { return tree_; }
  // The PATH is one file (then it is the only entry of files()).
  bool root_is_file() const { return root_is_file_; }
  // The PATH itself is a run folder of `ftdiag run`.
  bool root_is_run_folder() const { return root_is_run_folder_; }

  // Regular files and links to them, sorted by path: those outside
  // checkpoint folders within the budget, and those directly in one.
  const std::vector<InventoryFile>& files() const { return files_; }
  // Run folders of `ftdiag run`: the PATH itself when it is one, else those
  // directly in it (one deeper down is another job's), sorted.
  const std::vector<std::filesystem::path>& run_folders() const { return run_folders_; }
  // Checkpoint folders (checkpoint-500, global_step500, tmp-checkpoint-500),
  // breadth first; one inside another is part of it.
  const std::vector<std::filesystem::path>& checkpoint_folders() const { return checkpoint_folders_; }

  // Folders that could not be listed, and why; a line when kMaxWalkListed cut the walk.
  const std::vector<std::string>& problems() const { return problems_; }
  // "25000 files under P not read (...): most under data (25000)"; empty when all were listed.
  std::string not_listed() const;
  std::size_t files_not_listed() const { return files_not_listed_; }

  // The head of files()[index], read beneath the tree once and kept. Missing
  // when it cannot be opened (a refusal is permission_denied). Not safe to
  // call from several threads at once.
  const Fact<FileHead>& head(std::size_t index) const;

 private:
  std::filesystem::path root_;
  Fact<TreeReads> tree_ = Missing{MissingReason::not_present, "not opened"};
  bool root_is_file_ = false;
  bool root_is_run_folder_ = false;
  std::vector<InventoryFile> files_;
  std::vector<std::filesystem::path> run_folders_;
  std::vector<std::filesystem::path> checkpoint_folders_;
  std::vector<std::string> problems_;
  std::size_t files_not_listed_ = 0;
  std::vector<std::pair<std::filesystem::path, std::size_t>> not_listed_in_;  // most first
  std::size_t max_files_ = 0;
  mutable std::vector<std::optional<Fact<FileHead>>> heads_;
};

// Whether a file's name says it is likely evidence (a log, a journal, a
// launcher config, an environment report, a core).
bool named_like_evidence(const std::string& file_name);

// Whether the walk passes over a folder of this name.
bool is_passed_over(const std::string& folder_name);

// Up to `max_bytes` of a file of the tree when it is text: no NUL byte in
// its first 64 KiB (logs, reports and configs never hold one; checkpoints,
// archives and binaries do). Missing with the reason when it cannot be read,
// unparseable when it is binary.
Fact<std::string> read_text_head(const TreeReads& tree, const std::filesystem::path& file, std::size_t max_bytes);

}  // namespace ftdiag::collectors
