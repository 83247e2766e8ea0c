#include "collectors/checkpoint_dirs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "collect/checkpoint_scan.h"
#include "collectors/source_host.h"
#include "collectors/tree_walk.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

namespace {

bool is_checkpoint_folder(const fs::path& folder) { return collect::checkpoint_name(folder.filename().string()).has_value(); }

evidence::CheckpointEvidence evidence_of(const fs::path& folder, collect::CheckpointScan scan, std::string_view collector) {
  return evidence::CheckpointEvidence{.from = {.collector = std::string(collector), .file = folder.string()},
                                      .step = scan.step,
                                      .files = scan.files,
                                      .bytes = scan.bytes,
                                      .modified = scan.modified,
                                      .complete = std::move(scan.complete)};
}

}  // namespace

bool CheckpointDirsCollector::recognises(const fs::path& path) const {
  bool found = false;
  TreeVisitor visitor;
  visitor.folder = [&](const fs::path& folder) {
    found = is_checkpoint_folder(folder);
    return found ? WalkStep::stop : WalkStep::go_on;
  };
  visitor.file = [](const fs::path&) { return WalkStep::go_on; };
  walk_tree(path, visitor);
  return found;
}

evidence::CollectorReport CheckpointDirsCollector::collect(const fs::path& path, const CollectContext&,
                                                           evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  std::vector<evidence::CheckpointEvidence> checkpoints;
  std::vector<std::string> problems;
  TreeVisitor visitor;
  visitor.folder = [&](const fs::path& folder) {
    auto scan = collect::scan_checkpoint(folder);
    if (!scan) return WalkStep::go_on;
    report.sources.push_back(folder.string());
    checkpoints.push_back(evidence_of(folder, std::move(*scan), name()));
    if (checkpoints.size() < kMaxCheckpointsPerPath) return WalkStep::skip;  // its own files are the scan's
    problems.push_back(fmt::format("more than {} checkpoint folders: the rest not read", kMaxCheckpointsPerPath));
    return WalkStep::stop;
  };
  for (auto& problem : walk_tree(path, visitor)) problems.push_back(std::move(problem));
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
