// A collector gathers one kind of evidence into the evidence document. It
// names the sources it reads and the section it fills, says when it cannot
// (a CollectorReport whose outcome is Missing with the reason — never
// silently), and runs live (`ftdiag run`), post-mortem (`ftdiag analyze`) or
// both. Collectors gather; they never judge (that is src/rules/).
//
// Post-mortem, a collector reads what it claims of a PATH's inventory
// (collectors/inventory.h: one walk of the tree, shared by all of them).
//
// The list of collectors is explicit code: registry.cpp.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "collectors/inventory.h"
#include "evidence/document.h"

namespace ftdiag::evidence {
class FailureWords;
class PhaseTable;
}
namespace ftdiag::parse {
class LineEventTable;
}
namespace ftdiag::symbolize {
class ModuleSymbols;
}

namespace ftdiag::collectors {

enum class Mode { live, post_mortem, both };

// What every collector may use, shared by one collection.
struct CollectContext {
  const evidence::PhaseTable* phases = nullptr;  // training-phase patterns; null: phases stay unknown
  // Launcher, scheduler and OOM-daemon lines (rules/log-events.json); null: not recognised.
  const parse::LineEventTable* line_events = nullptr;
  // Words that name a failure in any program's language (rules/failure-words.json),
  // read on the last lines of plain logs; null: not read.
  const evidence::FailureWords* failure_words = nullptr;
  // Kernel logs named by the user (--kernel-log): read whatever PATH holds.
  std::vector<std::filesystem::path> kernel_logs;
  // Core files named by the user (--core).
  std::vector<std::filesystem::path> cores;
  // Names for places in binaries, shared by the collectors and the passes
  // after collection (one debug-info session per module); null: each makes its own.
  symbolize::ModuleSymbols* symbols = nullptr;
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

  // Post-mortem: whether the inventory of a PATH (a file or a folder) holds
  // something this collector reads. Cheap (names, the heads the inventory
  // keeps, a few bytes) and never throws.
  virtual bool recognises(const Inventory& inventory) const = 0;
  // Whether the user named this collector's sources directly (a kernel log
  // given with --kernel-log): it then runs once even when no PATH holds
  // anything it recognises.
  virtual bool asked_for(const CollectContext&) const { return false; }

  // Reads what it recognised in the inventory into `document`. Never throws;
  // what could not be read is in the report's outcome and in the evidence
  // itself (a Missing with the reason, a journal problem).
  virtual evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                            evidence::EvidenceDocument& document) const = 0;
};

}  // namespace ftdiag::collectors
