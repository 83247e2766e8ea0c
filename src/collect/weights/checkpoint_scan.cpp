#include "collect/weights/checkpoint_scan.h"

#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "base/read_file.h"
#include "base/text.h"
#include "collect/weights/weight_files.h"
#include "parse/weights/checkpoint_names.h"

namespace ftdiag::collect {
namespace {

namespace fs = std::filesystem;

constexpr std::size_t kMaxIndexBytes = 16 << 20;  // a shard index names every tensor: a few MiB at most
constexpr std::size_t kShownProblems = 3;

struct ListedFile {
  fs::path path;
  std::string relative;  // "global_step500/mp_rank_00_model_states.pt"
  std::uint64_t size = 0;
  double mtime = 0;
};

struct Listing {
  std::vector<ListedFile> files;
  std::optional<Missing> unreadable;
};

struct Problem {
  MissingReason reason;
  std::string text;
};

// Every regular file down to kMaxCheckpointDepth, symbolic links not followed.
Listing list_files(const fs::path& folder) {
  Listing listing;
  std::vector<std::pair<fs::path, int>> pending{{folder, 0}};
  while (!pending.empty() && listing.files.size() < kMaxCheckpointFiles) {
    auto [dir, depth] = pending.back();
    pending.pop_back();
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec && !listing.unreadable) listing.unreadable = missing_from_errno(ec.value(), "list " + dir.string());
    for (fs::directory_iterator end; !ec && it != end && listing.files.size() < kMaxCheckpointFiles; it.increment(ec)) {
      struct stat st {};
      if (::lstat(it->path().c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        if (depth + 1 < kMaxCheckpointDepth) pending.emplace_back(it->path(), depth + 1);
      } else if (S_ISREG(st.st_mode)) {
        listing.files.push_back({it->path(), it->path().lexically_relative(folder).string(), static_cast<std::uint64_t>(st.st_size),
                                 static_cast<double>(st.st_mtim.tv_sec) + static_cast<double>(st.st_mtim.tv_nsec) / 1e9});
      }
    }
  }
  return listing;
}

const ListedFile* find_file(const Listing& listing, std::string_view relative) {
  for (const auto& file : listing.files) {
    if (file.relative == relative) return &file;
  }
  return nullptr;
}

bool is_top_level(const ListedFile& file) { return file.relative.find('/') == std::string::npos; }

// Empty or truncated files, whichever the layout.
void check_files(const Listing& listing, std::vector<Problem>& problems) {
  for (const auto& file : listing.files) {
    const auto extension = file.path.extension();
    if (file.size == 0 && (extension == ".json" || extension == ".model" || extension == ".txt")) {
      problems.push_back({MissingReason::not_present, file.relative + " is empty"});
    } else if (auto problem = weight_file_problem(file.path, file.size)) {
      problems.push_back({file.size == 0 ? MissingReason::not_present : MissingReason::unparseable, *problem});
    }
  }
}

std::string missing_ranks(const std::set<std::uint64_t>& ranks) {
  std::vector<std::uint64_t> gaps;
  for (std::uint64_t r = 0; !ranks.empty() && r < *ranks.rbegin() && gaps.size() < 8; ++r) {
    if (!ranks.count(r)) gaps.push_back(r);
  }
  return fmt::format("{}", fmt::join(gaps, ", "));
}

// The files of one global_stepN folder (prefix "global_stepN/" inside a
// checkpoint-N, or "" for the folder itself) and the `latest` beside it.
void check_deepspeed(const Listing& listing, const std::string& prefix, std::uint64_t step, const fs::path& latest,
                     std::vector<Problem>& problems) {
  bool model_states = false;
  std::set<std::uint64_t> optim_ranks, model_ranks;
  for (const auto& file : listing.files) {
    if (!file.relative.starts_with(prefix)) continue;
    const std::string name = file.path.filename().string();
    if (name.ends_with("_model_states.pt")) {
      model_states = true;
      if (auto rank = parse::zero_rank(name)) model_ranks.insert(*rank);
    } else if (name.ends_with("_optim_states.pt")) {
      if (auto rank = parse::zero_rank(name)) optim_ranks.insert(*rank);
    }
  }
  const std::string where = prefix.empty() ? std::string("the folder") : prefix.substr(0, prefix.size() - 1);
  if (!model_states) problems.push_back({MissingReason::not_present, fmt::format("{} has no *_model_states.pt", where)});
  if (!optim_ranks.empty() && optim_ranks.size() != *optim_ranks.rbegin() + 1) {
    problems.push_back({MissingReason::not_present,
                        fmt::format("{}: the optimizer states of rank(s) {} are missing", where, missing_ranks(optim_ranks))});
  }
  if (!model_ranks.empty() && !optim_ranks.empty() && model_ranks != optim_ranks) {
    problems.push_back({MissingReason::not_present, fmt::format("{}: ZeRO-3 model states for {} ranks, optimizer states for {}", where,
                                                                model_ranks.size(), optim_ranks.size())});
  }
  auto tag = read_small_file(latest, 4096);
  if (!tag) {
    problems.push_back({MissingReason::not_present,
                        fmt::format("no `latest` beside {} ({}): DeepSpeed writes it once every rank saved", where, tag.missing().detail)});
    return;
  }
  const auto named = parse::checkpoint_name(text::trim(*tag));
  if (named && named->layout == parse::CheckpointLayout::deepspeed && named->step < step) {
    problems.push_back({MissingReason::not_present,
                        fmt::format("`latest` names {}, not global_step{}: the save did not finish", text::trim(*tag), step)});
  }
}

void check_shard_index(const Listing& listing, const ListedFile& index, std::vector<Problem>& problems) {
  auto text = read_small_file(index.path, kMaxIndexBytes);
  if (!text) return problems.push_back({text.missing().reason, index.relative + ": " + text.missing().detail});
  const auto json = nlohmann::json::parse(*text, nullptr, false);
  const auto map = json.is_object() ? json.find("weight_map") : json.end();
  if (!json.is_object() || map == json.end() || !map->is_object()) {
    return problems.push_back({MissingReason::unparseable, index.relative + " has no weight_map (cut short?)"});
  }
  std::set<std::string> shards;
  for (const auto& [tensor, shard] : map->items()) {
    if (shard.is_string()) shards.insert(shard.get<std::string>());
  }
  for (const auto& shard : shards) {
    const auto* file = find_file(listing, shard);
    if (!file) problems.push_back({MissingReason::not_present, fmt::format("{} names {}, which is missing", index.relative, shard)});
  }
}

void check_hf_trainer(const Listing& listing, std::uint64_t step, const fs::path& folder, std::vector<Problem>& problems) {
  bool weights = false;
  std::set<std::string> deepspeed_tags;
  for (const auto& file : listing.files) {
    const std::string name = file.path.filename().string();
    if (is_top_level(file)) {
      weights = weights || name == "model.safetensors" || name == "pytorch_model.bin" || name.starts_with("adapter_model.") ||
                name.ends_with(".index.json") || (name.starts_with("model-") && name.ends_with(".safetensors")) ||
                (name.starts_with("pytorch_model-") && name.ends_with(".bin"));
      if (name.ends_with(".index.json")) check_shard_index(listing, file, problems);
    } else if (file.relative.starts_with("global_step")) {
      deepspeed_tags.insert(file.relative.substr(0, file.relative.find('/')));
    }
  }
  for (const auto& tag : deepspeed_tags) {
    weights = true;
    const auto named = parse::checkpoint_name(tag);
    check_deepspeed(listing, tag + "/", named ? named->step : step, folder / "latest", problems);
  }
  if (!weights) {
    problems.push_back({MissingReason::not_present,
                        "no model weights (model.safetensors, pytorch_model.bin, adapter_model.*, a shard index or a DeepSpeed global_step folder)"});
  }
  if (!find_file(listing, "trainer_state.json")) {
    problems.push_back({MissingReason::not_present, "trainer_state.json is missing: the Trainer writes it after the weights"});
  }
}

Fact<bool> completeness(const std::vector<Problem>& problems) {
  if (problems.empty()) return true;
  std::vector<std::string> shown;
  for (std::size_t i = 0; i < problems.size() && i < kShownProblems; ++i) shown.push_back(problems[i].text);
  std::string detail = fmt::format("{}", fmt::join(shown, "; "));
  if (problems.size() > kShownProblems) detail += fmt::format(" (and {} more)", problems.size() - kShownProblems);
  const bool truncated = std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.reason == MissingReason::unparseable; });
  return Missing{truncated ? MissingReason::unparseable : MissingReason::not_present, detail};
}

}  // namespace

std::optional<CheckpointScan> scan_checkpoint(const fs::path& folder) {
  const auto name = parse::checkpoint_name(folder.filename().string());
  if (!name) return std::nullopt;
  CheckpointScan scan{.layout = name->layout, .step = name->step};
  const auto listing = list_files(folder);
  for (const auto& file : listing.files) {
    ++scan.files;
    scan.bytes += file.size;
    scan.modified = std::max(scan.modified.value_or(file.mtime), file.mtime);
  }
  if (listing.unreadable) {
    scan.complete = *listing.unreadable;
    return scan;
  }
  std::vector<Problem> problems;
  if (name->layout == parse::CheckpointLayout::trainer_temporary) {
    problems.push_back({MissingReason::not_present,
                        fmt::format("tmp-checkpoint-{}: the Trainer renames it to checkpoint-{} only once the save finished", name->step, name->step)});
  }
  check_files(listing, problems);
  if (name->layout == parse::CheckpointLayout::hf_trainer) check_hf_trainer(listing, name->step, folder, problems);
  if (name->layout == parse::CheckpointLayout::deepspeed) check_deepspeed(listing, "", name->step, folder.parent_path() / "latest", problems);
  scan.complete = completeness(problems);
  return scan;
}

}  // namespace ftdiag::collect
