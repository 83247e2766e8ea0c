#include "collectors/config_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/read_file.h"
#include "base/tree_reads.h"
#include "collect/weights/checkpoint_scan.h"
#include "collect/weights/model_weights.h"
#include "collectors/source_host.h"
#include "parse/configs/config_text.h"
#include "parse/configs/trainer_state.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kConfigRecogniseBytes = 64 * 1024;  // recognises() reads this much of a file, at most
constexpr std::size_t kRecogniseFiles = 64;         // and this many files

// Names that are JSON but never a configuration of the job (a tokenizer's
// files, a shard index): not read.
bool is_known_other(const std::string& name) {
  static constexpr std::array<std::string_view, 5> kNames = {"special_tokens_map.json", "vocab.json", "added_tokens.json",
                                                             "preprocessor_config.json", "environment.json"};
  return name.starts_with("tokenizer") || name.ends_with(".index.json") ||
         std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool in_checkpoint(const fs::path& file) { return parse::checkpoint_name(file.parent_path().filename().string()).has_value(); }

bool worth_reading(const fs::path& file) {
  if (!is_config_candidate(file)) return false;
  return !in_checkpoint(file) || file.filename() == "trainer_state.json";
}

// The files worth reading, in the walk's breadth-first order (near the PATH
// first, each folder's files in name order). None when the PATH is itself a
// run folder: what it holds is the journal collector's.
std::vector<fs::path> candidates_in(const Inventory& inventory) {
  std::vector<const InventoryFile*> files;
  if (inventory.root_is_run_folder()) return {};
  for (const auto& file : inventory.files()) {
    if (worth_reading(file.path)) files.push_back(&file);
  }
  std::sort(files.begin(), files.end(), [](const auto* a, const auto* b) { return a->visit < b->visit; });
  std::vector<fs::path> paths;
  for (const auto* file : files) paths.push_back(file->path);
  return paths;
}

bool holds_nul(std::string_view text) { return text.substr(0, 4096).find('\0') != std::string_view::npos; }

struct Candidate {
  std::optional<parse::ConfigReading> reading;
  std::string problem;  // why it could not be read; empty when it could
  bool denied = false;  // refused (base/tree_reads.h) or not permitted
};

Candidate read_candidate(const TreeReads& tree, const fs::path& file, std::size_t at_most) {
  auto fd = tree.open_file(file);  // never a FIFO or a socket: they would block the read
  if (!fd && fd.missing().reason == MissingReason::not_present) return {};
  if (!fd) return {std::nullopt, fd.missing().detail, fd.missing().reason == MissingReason::permission_denied};
  const std::size_t limit = file.filename() == "trainer_state.json" ? parse::kMaxTrainerStateBytes : kMaxConfigBytes;
  struct stat st {};
  if (::fstat(fd->get(), &st) == 0 && static_cast<std::uint64_t>(st.st_size) > limit && at_most >= limit) {
    return {std::nullopt, fmt::format("{}: skipped, {:.1f} MiB is more than the {} MiB a configuration may be", file.string(),
                                      static_cast<double>(st.st_size) / (1 << 20), limit >> 20)};
  }
  auto text = read_small_file_fd(fd->get(), file.string(), std::min(limit, at_most));
  if (!text) return {std::nullopt, text.missing().detail};
  if (holds_nul(*text)) return {};  // binary: not a configuration
  return {parse::read_config_text(*text), {}};
}

}  // namespace

bool is_config_candidate(const fs::path& file) {
  const std::string name = file.filename().string();
  if (is_known_other(name)) return false;
  if (name.find("hostfile") != std::string::npos) return true;
  const auto extension = file.extension();
  if (extension == ".json" || extension == ".yaml" || extension == ".yml" || extension == ".sh") return true;
  if (extension != ".txt") return false;
  static constexpr std::array<std::string_view, 10> kHints = {"config", "command", "cmd", "launch", "args",
                                                              "env", "snippet", "run", "train", "script"};
  return std::any_of(kHints.begin(), kHints.end(), [&](std::string_view hint) { return name.find(hint) != std::string::npos; });
}

// A configuration refused (a link out of the tree, say) is recognised too:
// the refusal is then said in the evidence, not passed over.
bool ConfigFilesCollector::recognises(const Inventory& inventory) const {
  const auto& tree = inventory.tree();
  if (!tree) return false;
  std::size_t tried = 0;
  for (const auto& file : candidates_in(inventory)) {
    const auto candidate = read_candidate(*tree, file, kConfigRecogniseBytes);
    if (candidate.reading.has_value() || candidate.denied) return true;
    if (++tried >= kRecogniseFiles) break;
  }
  return false;
}

evidence::CollectorReport ConfigFilesCollector::collect(const Inventory& inventory, const CollectContext&,
                                                        evidence::EvidenceDocument& document) const {
  const auto& path = inventory.root();
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<evidence::ConfigEvidence> configs;
  std::vector<std::string> problems;
  const auto& tree = inventory.tree();
  if (!tree) {
    report.outcome = tree.missing();
    return report;
  }
  bool denied = false;
  for (const auto& file : candidates_in(inventory)) {
    auto candidate = read_candidate(*tree, file, SIZE_MAX);
    denied = denied || candidate.denied;
    if (!candidate.problem.empty()) problems.push_back(std::move(candidate.problem));
    if (!candidate.reading) continue;
    // A fragment says so beside its path: what was read is what the user pasted.
    report.sources.push_back(candidate.reading->note.empty() ? file.string() : file.string() + " (" + candidate.reading->note + ")");
    const bool model_config = candidate.reading->kind == "model-config";
    configs.push_back(evidence::ConfigEvidence{.from = {.collector = std::string(name()), .file = file.string()},
                                               .kind = std::move(candidate.reading->kind),
                                               .settings = std::move(candidate.reading->settings)});
    // A model's folder (or a full checkpoint's): the safetensors headers
    // beside its config.json size it exactly for the memory model.
    if (model_config) {
      if (auto weights = collect::read_model_weights(file.parent_path())) {
        report.sources.push_back(file.parent_path().string() + " (safetensors headers)");
        configs.push_back(evidence::ConfigEvidence{.from = {.collector = std::string(name()), .file = file.parent_path().string()},
                                                   .kind = "model-weights", .settings = std::move(weights).value()});
      } else if (weights.missing().reason != MissingReason::not_present && weights.missing().reason != MissingReason::unsupported) {
        problems.push_back(weights.missing().detail);
      }
    }
    if (configs.size() < kMaxConfigsPerPath) continue;
    problems.push_back(fmt::format("more than {} configurations: the rest not read", kMaxConfigsPerPath));
    break;
  }
  for (const auto& problem : inventory.problems()) {
    // A folder the walk could not open is a refusal as much as a file.
    denied = denied || problem.find("Permission denied") != std::string::npos;
    problems.push_back(problem);
  }
  for (const auto& problem : problems) report.sources.push_back(problem);
  if (configs.empty() && problems.empty()) {
    report.outcome = Missing{MissingReason::not_present, "no configuration of a known kind under " + path.string()};
    return report;
  }
  if (configs.empty()) {
    report.outcome = Missing{denied ? MissingReason::permission_denied : MissingReason::failed,
                             fmt::format("no configuration could be read: {}", fmt::join(problems, "; "))};
    return report;
  }
  auto& host = host_of_path_sources(document);
  for (auto& config : configs) host.configs.push_back(std::move(config));
  return report;
}

}  // namespace ftdiag::collectors
