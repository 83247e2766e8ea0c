// Core files of the job's crashed processes, unwound thread by thread with
// libdwfl as `eu-stack --core` would: the crashed thread's frames become the
// process's crash (source "core") when the crash handler left no record of
// it (it was off, or the process was not dynamically linked). Looked for in
// each run folder, in the job's working directory when the run was recorded
// on this host, and wherever --core names.
//
// A collector after the journal's: it places each core in the run that holds
// its process. It looks again at every run of the document each time a PATH
// holds runs or cores, and a core already in the document is not read twice.
#pragma once

#include <filesystem>
#include <vector>

#include "collectors/collector.h"
#include "evidence/document.h"
#include "symbolize/module_symbols.h"

namespace ftdiag::collectors {

class CoreDumpsCollector final : public Collector {
 public:
  std::string_view name() const override { return "core-dumps"; }
  std::string_view section() const override { return "hosts[].runs[].crashes"; }
  Mode mode() const override { return Mode::post_mortem; }
  std::string_view looks_for() const override {
    return "core files (core, core.*) in PATH, its run folders or the job's working directory, or given with --core";
  }
  // A PATH with run folders (their job's working directory may hold cores),
  // or with a core file in it.
  bool recognises(const Inventory& inventory) const override;
  bool asked_for(const CollectContext& context) const override { return !context.cores.empty(); }
  evidence::CollectorReport collect(const Inventory& inventory, const CollectContext& context,
                                    evidence::EvidenceDocument& document) const override;
};

// Never throws. `named`: cores the user named (--core); a core that is not
// one of a run's processes goes to its host's crashes. The paths of the
// cores read are appended to `read`.
void add_core_dumps(evidence::EvidenceDocument& document, const std::vector<std::filesystem::path>& named,
                    symbolize::ModuleSymbols& symbols, const std::string& this_host, std::vector<std::string>& read);

// The crash a core holds (exposed for tests).
evidence::CrashEvidence crash_from_core(const std::filesystem::path& core, symbolize::ModuleSymbols& symbols);

}  // namespace ftdiag::collectors
