// Every collector ftdiag has, in the order they run, and the passes that
// run over the whole document once every collector has read its part.
#pragma once

#include <string_view>
#include <vector>

#include "collectors/collector.h"
#include "evidence/document.h"
#include "symbolize/module_symbols.h"

namespace ftdiag::collectors {

// Static instances; valid for the whole program.
const std::vector<const Collector*>& all_collectors();

// Those that run on `analyze` (mode post_mortem or both).
std::vector<const Collector*> post_mortem_collectors();

// A pass after collection: it works on what every collector gathered (names
// the code places of the kernel's faults and the crash records), never
// reads a PATH.
struct PostCollectionPass {
  std::string_view name;
  void (*run)(evidence::EvidenceDocument& document, symbolize::ModuleSymbols& symbols);
};

// In the order they run.
const std::vector<PostCollectionPass>& post_collection_passes();

}  // namespace ftdiag::collectors
