#include "collectors/environment_reports.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collectors/source_host.h"
#include "parse/reports/environment_report.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kReportRecogniseBytes = 256 * 1024;
constexpr std::size_t kMaxProblemsListed = 20;

// The files of the inventory that may hold a report, sorted: at most
// kMaxReportFiles of them, likely evidence first (the inventory's order),
// none in a checkpoint folder, none when the PATH is itself a run folder
// (its environment is environment.json, not text that looks like a report).
std::vector<fs::path> report_candidate_files(const Inventory& inventory) {
  if (inventory.root_is_run_folder()) return {};
  std::vector<const InventoryFile*> candidates;
  for (const auto& file : inventory.files()) {
    if (!file.in_checkpoint) candidates.push_back(&file);
  }
  std::sort(candidates.begin(), candidates.end(), [](const auto* a, const auto* b) { return a->rank < b->rank; });
  if (candidates.size() > kMaxReportFiles) candidates.resize(kMaxReportFiles);
  std::vector<fs::path> files;
  for (const auto* file : candidates) files.push_back(file->path);
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace

bool EnvironmentReportsCollector::recognises(const Inventory& inventory) const {
  const auto& tree = inventory.tree();
  if (!tree) return false;
  for (const auto& file : report_candidate_files(inventory)) {
    auto text = read_text_head(*tree, file, kReportRecogniseBytes);
    if (text && !parse::parse_environment_report(text.value()).empty()) return true;
  }
  return false;
}

evidence::CollectorReport EnvironmentReportsCollector::collect(const Inventory& inventory, const CollectContext&,
                                                               evidence::EvidenceDocument& document) const {
  const auto& path = inventory.root();
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<std::string> problems;
  std::size_t stated = 0;
  const auto& tree = inventory.tree();
  if (!tree) {
    report.outcome = tree.missing();
    return report;
  }
  for (const auto& file : report_candidate_files(inventory)) {
    auto text = read_text_head(*tree, file, kMaxReportFileBytes);
    if (!text) {
      // A binary file is simply not a report; one that cannot be read might have been.
      if (text.missing().reason != MissingReason::unparseable && problems.size() < kMaxProblemsListed) {
        problems.push_back(text.missing().detail);
      }
      continue;
    }
    const auto values = parse::parse_environment_report(text.value());
    if (values.empty()) continue;
    report.sources.push_back(file.string());
    auto& host = host_of_path_sources(document);
    for (const auto& value : values) {
      host.reported.push_back({.key = value.key,
                               .value = value.value,
                               .format = value.format,
                               .from = {.collector = std::string(name()), .file = file.string(), .line = value.line}});
    }
    stated += values.size();
  }
  for (const auto& problem : problems) report.sources.push_back("unreadable: " + problem);
  if (stated == 0) {
    report.outcome = Missing{problems.empty() ? MissingReason::not_present : MissingReason::failed,
                             problems.empty() ? fmt::format("no environment report under {}", path.string())
                                              : fmt::format("no environment report could be read under {}: {}", path.string(),
                                                            fmt::join(problems, "; "))};
  }
  return report;
}

}  // namespace ftdiag::collectors
