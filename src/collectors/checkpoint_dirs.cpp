#include "collectors/checkpoint_dirs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collect/weights/checkpoint_scan.h"
#include "collectors/source_host.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

evidence::CheckpointEvidence evidence_of(const fs::path& folder, collect::CheckpointScan scan, std::string_view collector) {
  return evidence::CheckpointEvidence{.from = {.collector = std::string(collector), .file = folder.string()},
                                      .step = scan.step,
                                      .files = scan.files,
                                      .bytes = scan.bytes,
                                      .modified = scan.modified,
                                      .complete = std::move(scan.complete)};
}

}  // namespace

bool CheckpointDirsCollector::recognises(const Inventory& inventory) const { return !inventory.checkpoint_folders().empty(); }

evidence::CollectorReport CheckpointDirsCollector::collect(const Inventory& inventory, const CollectContext&,
                                                           evidence::EvidenceDocument& document) const {
  const auto& path = inventory.root();
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<evidence::CheckpointEvidence> checkpoints;
  std::vector<std::string> problems;
  for (const auto& folder : inventory.checkpoint_folders()) {
    if (checkpoints.size() == kMaxCheckpointsPerPath) {
      problems.push_back(fmt::format("more than {} checkpoint folders: the rest not read", kMaxCheckpointsPerPath));
      break;
    }
    auto scan = collect::scan_checkpoint(folder);
    if (!scan) continue;
    report.sources.push_back(folder.string());
    checkpoints.push_back(evidence_of(folder, std::move(*scan), name()));
  }
  for (const auto& problem : inventory.problems()) problems.push_back(problem);
  for (const auto& problem : problems) report.sources.push_back(problem);
  if (checkpoints.empty()) {
    report.outcome = Missing{problems.empty() ? MissingReason::not_present : MissingReason::failed,
                             problems.empty() ? "no checkpoint folder under " + path.string()
                                              : fmt::format("no checkpoint folder could be read: {}", fmt::join(problems, "; "))};
    return report;
  }
  auto& host = host_of_path_sources(document);
  for (auto& checkpoint : checkpoints) host.checkpoints.push_back(std::move(checkpoint));
  return report;
}

}  // namespace ftdiag::collectors
