// `ftdiag analyze PATH...`: every post-mortem collector that recognises
// something under a path reads it into one evidence document.
#pragma once

#include <filesystem>
#include <vector>

#include "base/fact.h"
#include "collectors/collector.h"
#include "collectors/registry.h"
#include "evidence/document.h"

namespace ftdiag::collectors {

// Missing not_present when a path does not exist or nothing under any path
// was recognised; permission_denied when a path cannot be read. Collectors
// that recognised something but could not read it are in
// document.collectors with their reason.
// Each PATH's inventory is taken once (collectors/inventory.h) and handed to
// every collector; the passes run after the last collector, over the whole
// document.
Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<std::filesystem::path>& paths,
                                                     const CollectContext& context,
                                                     const std::vector<const Collector*>& collectors,
                                                     const std::vector<PostCollectionPass>& passes = {});

// `ftdiag analyze`'s one entry point: every post-mortem collector of the
// registry, then every pass after collection.
Fact<evidence::EvidenceDocument> collect_post_mortem(const std::vector<std::filesystem::path>& paths,
                                                     const CollectContext& context);

// For the document `ftdiag run` built from its own state (its sources: the
// run folder): the cores of the job's processes, read as `analyze` reads
// them, then every pass after collection, so that both name the same code.
void finish_live_document(evidence::EvidenceDocument& document, const CollectContext& context);

}  // namespace ftdiag::collectors
