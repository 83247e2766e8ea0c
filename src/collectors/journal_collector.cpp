#include "collectors/journal_collector.h"

#include "journal/environment_file.h"
#include "journal/job_directory.h"
#include "journal/job_reader.h"

namespace ftdiag::collectors {

namespace fs = std::filesystem;

bool JournalCollector::recognises(const Inventory& inventory) const { return !inventory.run_folders().empty(); }

evidence::CollectorReport JournalCollector::collect(const Inventory& inventory, const CollectContext& context,
                                                    evidence::EvidenceDocument& document) const {
  evidence::CollectorReport report{.name = std::string(name()), .section = std::string(section())};
  if (inventory.run_folders().empty()) {
    report.outcome = inventory.tree() ? Missing{MissingReason::not_present, "no run folder under " + inventory.root().string()}
                                      : inventory.tree().missing();
    return report;
  }
  for (const auto& dir : inventory.run_folders()) {
    report.sources.push_back((dir / evidence::kJournalFileName).string());
    auto run = journal::read_run_directory(dir, context.phases, context.line_events);
    if (!run) {
      // Kept as a run with its problem: a rank whose journal cannot be read
      // is itself worth telling.
      evidence::RunEvidence unreadable;
      unreadable.directory = dir.filename().string();
      unreadable.journal_problems.push_back(run.missing().detail);
      unreadable.job_status = run.missing();
      evidence::host_named(document, "").runs.push_back(std::move(unreadable));
      continue;
    }
    const std::string host = evidence::node_of(run->started);
    auto& host_evidence = evidence::host_named(document, host);
    host_evidence.runs.push_back(std::move(run).value());
    // The environment the run read as the job started (environment.json).
    const auto environment_file = dir / journal::kEnvironmentFileName;
    if (std::error_code ec; fs::exists(environment_file, ec)) {
      report.sources.push_back(environment_file.string());
      if (auto snapshot = journal::read_environment_file(environment_file)) {
        evidence::add_to_host(snapshot.value(), host_evidence);
      } else {
        host_evidence.runs.back().journal_problems.push_back(snapshot.missing().detail);
      }
    }
  }
  return report;
}

}  // namespace ftdiag::collectors
