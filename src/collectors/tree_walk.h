// The files and folders a post-mortem collector looks at under a PATH the
// user gave: PATH itself when it is a file, else the tree below it, bounded
// and without what never holds a job's own configs or checkpoints.
//
// Passed over: .git, __pycache__, site-packages, dist-packages,
// node_modules, virtual environments (venv, .venv), and ftdiag's own run
// folders (they hold journal.jsonl: the journal collector reads those).
// Symbolic links to folders are not followed, so a link loop costs nothing;
// folders are listed beneath the path's open descriptor (base/tree_reads.h),
// so a folder swapped for a link while walked leads nowhere else. Files are
// handed over by path: a visitor reads them through base/tree_reads.h too.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace ftdiag::collectors {

inline constexpr int kMaxWalkDepth = 4;                 // PATH/a/b/c/d/file
inline constexpr std::size_t kMaxWalkEntries = 200000;  // a tree this large is not a job's folder

enum class WalkStep { go_on, skip, stop };

struct TreeVisitor {
  // A folder below PATH (PATH itself too): go_on descends into it, skip does not.
  std::function<WalkStep(const std::filesystem::path&)> folder = [](const std::filesystem::path&) { return WalkStep::go_on; };
  // A file, or anything that is not a folder (a FIFO, a socket: check before reading).
  std::function<WalkStep(const std::filesystem::path&)> file = [](const std::filesystem::path&) { return WalkStep::go_on; };
};

// Visits breadth first (what lies near PATH before what lies deep), each
// folder's entries in name order. Returns what could not
// be listed and why ("PATH: Permission denied"), and a line when a bound cut
// the walk short. Never throws beyond allocation failure.
std::vector<std::string> walk_tree(const std::filesystem::path& root, const TreeVisitor& visitor);

// Whether a folder is one the walk passes over (by name, or a run folder).
bool is_passed_over(const std::filesystem::path& folder);

}  // namespace ftdiag::collectors
