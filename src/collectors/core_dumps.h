// Core files of the job's crashed processes, unwound thread by thread with
// libdwfl as `eu-stack --core` would: the crashed thread's frames become the
// process's crash (source "core") when the crash handler left no record of
// it (it was off, or the process was not dynamically linked). Looked for in
// each run folder, in the job's working directory when the run was recorded
// on this host, and wherever --core names.
#pragma once

#include <filesystem>
#include <vector>

#include "evidence/document.h"
#include "symbolize/module_symbols.h"

namespace ftdiag::collectors {

// Never throws. `named`: cores the user named (--core); a core that is not
// one of a run's processes goes to its host's crashes.
void add_core_dumps(evidence::EvidenceDocument& document, const std::vector<std::filesystem::path>& named,
                    symbolize::ModuleSymbols& symbols, const std::string& this_host);

// The crash a core holds (exposed for tests).
evidence::CrashEvidence crash_from_core(const std::filesystem::path& core, symbolize::ModuleSymbols& symbols);

}  // namespace ftdiag::collectors
