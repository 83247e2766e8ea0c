#include "collectors/tree_walk.h"

#include <algorithm>
#include <array>
#include <string_view>

#include <fmt/format.h>

#include "base/fact.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

bool is_passed_over(const fs::path& folder) {
  static constexpr std::array<std::string_view, 9> kNames = {".git", "__pycache__", "site-packages", "dist-packages", "node_modules",
                                                             "venv", ".venv", ".tox", ".mypy_cache"};
  const std::string name = folder.filename().string();
  if (std::find(kNames.begin(), kNames.end(), name) != kNames.end()) return true;
  std::error_code ec;
  return fs::exists(folder / "journal.jsonl", ec);
}

namespace {

struct Walk {
  const TreeVisitor& visitor;
  std::vector<std::string> problems;
  std::size_t entries = 0;
  bool stopped = false;

  // Sorted children, or none (with the reason kept) when the folder cannot be listed.
  std::vector<fs::directory_entry> children(const fs::path& folder) {
    std::vector<fs::directory_entry> out;
    std::error_code ec;
    fs::directory_iterator it(folder, ec);
    for (fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
      if (++entries > kMaxWalkEntries) {
        problems.push_back(fmt::format("{}: more than {} entries, the rest not looked at", folder.string(), kMaxWalkEntries));
        stopped = true;
        break;
      }
      out.push_back(*it);
    }
    if (ec) problems.push_back(missing_from_errno(ec.value(), "list " + folder.string()).detail);
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.path() < b.path(); });
    return out;
  }

  void folder(const fs::path& path, int depth) {
    if (stopped) return;
    const WalkStep step = visitor.folder(path);
    if (step == WalkStep::stop) stopped = true;
    if (step != WalkStep::go_on || is_passed_over(path)) return;
    for (const auto& entry : children(path)) {
      if (stopped) return;
      std::error_code ec;
      const auto status = entry.symlink_status(ec);
      if (fs::is_directory(status)) {
        if (depth < kMaxWalkDepth) folder(entry.path(), depth + 1);
      } else if (!fs::is_symlink(status) || !fs::is_directory(entry.path(), ec)) {
        stopped = visitor.file(entry.path()) == WalkStep::stop;
      }
    }
  }
};

}  // namespace

std::vector<std::string> walk_tree(const fs::path& root, const TreeVisitor& visitor) {
  Walk walk{visitor};
  std::error_code ec;
  if (fs::is_directory(root, ec)) {
    walk.folder(root, 0);
  } else {
    visitor.file(root);
  }
  return std::move(walk.problems);
}

}  // namespace ftdiag::collectors
