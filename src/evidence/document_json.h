// JSON form of the evidence document (docs/evidence.md).
#pragma once

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "evidence/document.h"

namespace ftdiag::evidence {

nlohmann::json document_to_json(const EvidenceDocument& document);

// Reads a document written by document_to_json. Missing(unparseable) with
// the reason for malformed input or an unsupported schema_version.
Fact<EvidenceDocument> document_from_json(const nlohmann::json& j);

}  // namespace ftdiag::evidence
