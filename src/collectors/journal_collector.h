// The runs `ftdiag run` recorded: journal.jsonl and console.log of each run
// folder under a path (one run folder, or a job directory shared by ranks
// and nodes). Each run goes to the host its journal names.
#pragma once

#include "collectors/collector.h"

namespace ftdiag::collectors {

class JournalCollector final : public Collector {
 public:
  std::string_view name() const override { return "journal"; }
  std::string_view section() const override { return "hosts[].runs"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override { return "journal.jsonl in PATH or in its sub-folders (written by `ftdiag run`)"; }
  bool recognises(const Inventory& inventory) const override;
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

}  // namespace ftdiag::collectors
