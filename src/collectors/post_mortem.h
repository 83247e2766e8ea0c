// `ftdiag analyze PATH...`: every post-mortem collector that recognises
// something under a path reads it into one evidence document.
#pragma once

#include <filesystem>
#include <vector>

#include "base/fact.h"
#include "collectors/collector.h"
#include "evidence/document.h"

namespace ftdiag::collectors {

// Missing not_present when a path does not exist or nothing under any path
// was recognised; permission_denied when a path cannot be read. Collectors
// that recognised something but could not read it are in
// document.collectors with their reason.
Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<std::filesystem::path>& paths,
                                                     const CollectContext& context,
                                                     const std::vector<const Collector*>& collectors);

}  // namespace ftdiag::collectors
