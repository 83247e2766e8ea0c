#include "collectors/tree_walk.h"

#include <algorithm>
#include <array>
#include <deque>
#include <string_view>

#include <fmt/format.h>

#include "base/tree_reads.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

bool passed_over_by_name(const std::string& name) {
  static constexpr std::array<std::string_view, 9> kNames = {".git", "__pycache__", "site-packages", "dist-packages", "node_modules",
                                                             "venv", ".venv", ".tox", ".mypy_cache"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool holds_journal(const std::vector<TreeReads::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const TreeReads::Entry& e) { return e.name == "journal.jsonl"; });
}

}  // namespace

bool is_passed_over(const fs::path& folder) {
  if (passed_over_by_name(folder.filename().string())) return true;
  std::error_code ec;
  return fs::exists(folder / "journal.jsonl", ec);
}

std::vector<std::string> walk_tree(const fs::path& root, const TreeVisitor& visitor) {
  std::vector<std::string> problems;
  auto tree = TreeReads::open(root);
  if (!tree || !tree->is_folder()) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) visitor.file(root);
    return problems;
  }
  std::size_t entries_seen = 0;
  std::deque<std::pair<fs::path, int>> pending{{root, 0}};
  while (!pending.empty()) {
    const auto [folder, depth] = std::move(pending.front());
    pending.pop_front();
    const WalkStep step = visitor.folder(folder);
    if (step == WalkStep::stop) return problems;
    if (step == WalkStep::skip || passed_over_by_name(folder.filename().string())) continue;
    auto entries = tree->list(folder);
    if (!entries) {
      problems.push_back(entries.missing().detail);
      continue;
    }
    if (holds_journal(*entries)) continue;  // a run folder of `ftdiag run`: the journal collector's
    entries_seen += entries->size();
    if (entries_seen > kMaxWalkEntries) {
      problems.push_back(fmt::format("{}: more than {} entries, the rest not looked at", folder.string(), kMaxWalkEntries));
      return problems;
    }
    std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    for (const auto& entry : *entries) {
      const fs::path path = folder / entry.name;
      if (entry.kind == TreeReads::Kind::folder) {
        if (depth < kMaxWalkDepth) pending.emplace_back(path, depth + 1);
      } else if (entry.kind != TreeReads::Kind::link && visitor.file(path) == WalkStep::stop) {
        return problems;
      }
    }
  }
  return problems;
}

}  // namespace ftdiag::collectors
