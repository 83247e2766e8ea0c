// A collector gathers one kind of evidence into the evidence document. It
// names the sources it reads and the section it fills, says when it cannot
// (a CollectorReport whose outcome is Missing with the reason — never
// silently), and runs live (`ftdiag run`), post-mortem (`ftdiag analyze`) or
// both. Collectors gather; they never judge (that is src/rules/).
//
// The list of collectors is explicit code: registry.cpp.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "evidence/document.h"

namespace ftdiag::evidence {
class PhaseTable;
}
namespace ftdiag::parse {
class LineEventTable;
}

namespace ftdiag::collectors {

enum class Mode { live, post_mortem, both };

// What every collector may use, shared by one collection.
struct CollectContext {
  const evidence::PhaseTable* phases = nullptr;  // training-phase patterns; null: phases stay unknown
  // Launcher, scheduler and OOM-daemon lines (rules/log-events.json); null: not recognised.
  const parse::LineEventTable* line_events = nullptr;
  // Kernel logs named by the user (--kernel-log): read whatever PATH holds.
  std::vector<std::filesystem::path> kernel_logs;
  // Read this host's own kernel log (/dev/kmsg, journalctl, /var/log) for
  // runs recorded here; off for fixtures and tests of other machines' records.
  bool read_this_host = true;
};

class Collector {
 public:
  virtual ~Collector() = default;

  virtual std::string_view name() const = 0;
  // Where in the document its evidence goes, e.g. "hosts[].runs".
  virtual std::string_view section() const = 0;
  virtual Mode mode() const = 0;
  // What it recognises, for the user told that nothing was: "journal.jsonl
  // in PATH or its sub-folders".
  virtual std::string_view looks_for() const = 0;

  // Post-mortem: whether PATH (a file or a directory) holds something this
  // collector reads. Cheap (names, stat, a few bytes) and never throws.
  virtual bool recognises(const std::filesystem::path& path) const = 0;
  // Whether the user named this collector's sources directly (a kernel log
  // given with --kernel-log): it then runs once even when no PATH holds
  // anything it recognises.
  virtual bool asked_for(const CollectContext&) const { return false; }

  // Reads what it recognised under PATH into `document`. Never throws; what
  // could not be read is in the report's outcome and in the evidence itself
  // (a Missing with the reason, a journal problem).
  virtual evidence::CollectorReport collect(const std::filesystem::path& path, const CollectContext& context,
                                            evidence::EvidenceDocument& document) const = 0;
};

}  // namespace ftdiag::collectors
