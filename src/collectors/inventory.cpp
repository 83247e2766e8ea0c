#include "collectors/inventory.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <deque>
#include <map>

#include <fmt/format.h>

#include "base/ascii.h"
#include "base/read_file.h"
#include "journal/job_directory.h"
#include "parse/weights/checkpoint_names.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

// How far past the first byte a head of NULs is looked through for text.
constexpr std::uint64_t kMaxNulHeadRead = std::uint64_t{16} << 20;
// read_text_head's check for a binary file reads this much first.
constexpr std::size_t kBinaryCheckBytes = 64 * 1024;

bool is_checkpoint_folder(const std::string& name) { return parse::checkpoint_name(name).has_value(); }

// Whatever the entry is: a journal.jsonl that is a folder or a FIFO is a
// damaged run folder, and the journal collector says what is wrong with it.
bool holds_journal(const std::vector<TreeReads::Entry>& entries) {
  return std::any_of(entries.begin(), entries.end(), [](const TreeReads::Entry& e) { return e.name == evidence::kJournalFileName; });
}

bool is_listed_file(const TreeReads::Entry& entry) {
  return entry.kind == TreeReads::Kind::file || entry.kind == TreeReads::Kind::link_to_file;
}

struct Pending {
  fs::path folder;
  int depth;
};

FileHead read_head(int fd) {
  FileHead head;
  off_t data = ::lseek(fd, 0, SEEK_DATA);
  if (data < 0) data = 0;  // ENXIO: nothing but a hole; EINVAL: no SEEK_DATA here
  std::string chunk(64 * 1024, '\0');
  std::uint64_t at = static_cast<std::uint64_t>(data);
  while (at < static_cast<std::uint64_t>(data) + kMaxNulHeadRead) {
    const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(at));
    if (n <= 0) break;
    const auto text = std::string_view(chunk.data(), static_cast<std::size_t>(n));
    if (const auto first = text.find_first_not_of('\0'); first != std::string_view::npos) {
      head.nul_head = at + first;
      break;
    }
    at += static_cast<std::uint64_t>(n);
  }
  head.text.resize(kHeadBytes);
  const ssize_t n = ::pread(fd, head.text.data(), kHeadBytes, static_cast<off_t>(head.nul_head));
  head.text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return head;
}

}  // namespace

bool named_like_evidence(const std::string& file_name) {
  std::string name = file_name;
  for (char& c : name) c = ascii::to_lower(c);
  for (std::string_view suffix : {".log", ".out", ".err", ".stdout", ".stderr"}) {
    if (name.ends_with(suffix)) return true;
  }
  if (name == evidence::kJournalFileName || name == "nohup.out" || name == "core" || name.starts_with("core.")) return true;
  if (name.starts_with("ds_config") || name.starts_with("slurm-")) return true;
  static constexpr std::array<std::string_view, 6> kReportHints = {"env_report", "environment", "collect_env", "ds_report",
                                                                  "nvidia-smi", "nvidia_smi"};
  return std::any_of(kReportHints.begin(), kReportHints.end(), [&](std::string_view hint) { return name.find(hint) != std::string::npos; });
}

bool is_passed_over(const std::string& name) {
  // Hidden folders are tools' state (.git, .cache, .ipynb_checkpoints),
  // except Hydra's, which keeps the job's resolved config.
  if (name.empty() || (name[0] == '.' && name != ".hydra")) return true;
  static constexpr std::array<std::string_view, 9> kNeverEvidence = {
      "__pycache__", "node_modules", "site-packages", "dist-packages", "venv", "env", "conda", "miniconda3", "anaconda3"};
  return std::find(kNeverEvidence.begin(), kNeverEvidence.end(), name) != kNeverEvidence.end();
}

Inventory Inventory::of(const fs::path& path, const InventoryLimits& limits) {
  Inventory inventory;
  inventory.root_ = path;
  inventory.max_files_ = limits.max_files;
  inventory.tree_ = TreeReads::open(path);
  if (!inventory.tree_) return inventory;
  const TreeReads& tree = inventory.tree_.value();
  if (!tree.is_folder()) {
    std::error_code ec;
    inventory.root_is_file_ = true;
    if (fs::is_regular_file(path, ec)) inventory.files_.push_back({.path = path});
    inventory.heads_.resize(inventory.files_.size());
    return inventory;
  }
  std::vector<InventoryFile> found;  // outside checkpoint folders, breadth first
  std::vector<InventoryFile> in_checkpoints;
  std::map<fs::path, std::size_t> crowded;  // files not listed, by folder
  std::size_t listed = 0;
  // Breadth first: what lies near the root is found before the budget of
  // entries can run out in a deep cache.
  std::deque<Pending> pending{{path, 0}};
  while (!pending.empty() && listed < kMaxWalkListed) {
    const Pending at = std::move(pending.front());
    pending.pop_front();
    auto entries = tree.list(at.folder);
    if (!entries) {
      inventory.problems_.push_back(entries.missing().detail);
      continue;
    }
    listed += entries->size();
    std::sort(entries->begin(), entries->end(), [](const auto& a, const auto& b) { return a.name < b.name; });
    if (holds_journal(*entries)) {
      // The job's runs are the PATH itself or its sub-folders; one deeper
      // down is another job's (a folder of jobs, whose newest `analyze` takes).
      if (at.depth <= 1) inventory.run_folders_.push_back(at.folder);
      // A run folder below the PATH is the journal collector's alone; the
      // PATH itself, when it is one, is still listed.
      if (at.depth > 0) continue;
      inventory.root_is_run_folder_ = true;
    }
    // A checkpoint folder is listed, not entered; the PATH itself, when it
    // is one, is walked like any folder.
    const bool checkpoint = is_checkpoint_folder(at.folder.filename().string());
    if (checkpoint) inventory.checkpoint_folders_.push_back(at.folder);
    if (checkpoint && at.depth > 0) {
      for (const auto& entry : *entries) {
        if (!is_listed_file(entry)) continue;
        in_checkpoints.push_back({.path = at.folder / entry.name,
                                  .depth = at.depth,
                                  .named_like_evidence = named_like_evidence(entry.name),
                                  .in_checkpoint = true});
      }
      continue;
    }
    std::size_t files = 0;
    for (const auto& entry : *entries) files += entry.kind != TreeReads::Kind::folder;
    const bool crowd = files > kCrowdedFolderFiles;
    for (const auto& entry : *entries) {
      const fs::path child = at.folder / entry.name;
      if (entry.kind == TreeReads::Kind::folder) {
        if (at.depth < limits.max_depth && !is_passed_over(entry.name)) pending.push_back({child, at.depth + 1});
      } else if (is_listed_file(entry)) {
        const bool evidence = named_like_evidence(entry.name);
        if (crowd && !evidence) {
          ++crowded[at.folder];
          ++inventory.files_not_listed_;
          continue;
        }
        found.push_back({.path = child, .depth = at.depth, .named_like_evidence = evidence});
      }
    }
  }
  if (listed >= kMaxWalkListed) {
    inventory.problems_.push_back(fmt::format("{}: more than {} entries, the rest not looked at", path.string(), kMaxWalkListed));
  }
  for (std::size_t i = 0; i < found.size(); ++i) found[i].visit = i;
  // The budget goes to likely evidence first, then to what lies nearest the root.
  std::stable_sort(found.begin(), found.end(), [](const InventoryFile& a, const InventoryFile& b) {
    if (a.named_like_evidence != b.named_like_evidence) return a.named_like_evidence;
    return a.depth < b.depth;
  });
  for (std::size_t i = 0; i < found.size(); ++i) {
    found[i].rank = i;
    if (i < limits.max_files) {
      inventory.files_.push_back(std::move(found[i]));
    } else {
      ++inventory.files_not_listed_;
      ++crowded[found[i].path.parent_path()];
    }
  }
  // Files in checkpoint folders come after the budget's files in both orders.
  for (std::size_t i = 0; i < in_checkpoints.size(); ++i) {
    in_checkpoints[i].visit = in_checkpoints[i].rank = found.size() + i;
    inventory.files_.push_back(std::move(in_checkpoints[i]));
  }
  std::sort(inventory.files_.begin(), inventory.files_.end(),
            [](const InventoryFile& a, const InventoryFile& b) { return a.path < b.path; });
  std::sort(inventory.run_folders_.begin(), inventory.run_folders_.end());
  inventory.not_listed_in_.assign(crowded.begin(), crowded.end());
  std::stable_sort(inventory.not_listed_in_.begin(), inventory.not_listed_in_.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  inventory.heads_.resize(inventory.files_.size());
  return inventory;
}

std::string Inventory::not_listed() const {
  if (files_not_listed_ == 0) return {};
  std::string where;
  for (std::size_t i = 0; i < not_listed_in_.size() && i < 3; ++i) {
    const auto& [folder, count] = not_listed_in_[i];
    where += fmt::format("{}{} ({})", where.empty() ? "" : ", ", folder.lexically_relative(root_).string(), count);
  }
  return fmt::format("{} files under {} not read (data in folders of more than {} files, or past the {} files read): most under {}",
                     files_not_listed_, root_.string(), kCrowdedFolderFiles, max_files_, where);
}

const Fact<FileHead>& Inventory::head(std::size_t index) const {
  auto& slot = heads_.at(index);
  if (!slot) {
    auto fd = tree_.value().open_file(files_[index].path);
    slot = fd ? Fact<FileHead>(read_head(fd->get())) : Fact<FileHead>(fd.missing());
  }
  return *slot;
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
