// JSON Lines form of the journal records. Each record carries "type"; its
// other keys are its field table (record_fields.h).
#pragma once

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "evidence/records.h"

namespace ftdiag::evidence {

nlohmann::json record_to_json(const JournalRecord& record);

// Parses one journal line's object. Missing(unparseable) for an unknown type
// or a field of the wrong type; never throws.
Fact<JournalRecord> record_from_json(const nlohmann::json& j);

}  // namespace ftdiag::evidence
