// Facts written as a flat JSON object {"death.signal": 9, ...}: the fixture
// format of rule tests that exercise a rule's logic without a whole evidence
// document. Facts absent from the object are missing.
#pragma once

#include <nlohmann/json.hpp>

#include "base/fact.h"
#include "facts/fact_set.h"

namespace ftdiag::facts {

// Missing(unparseable) naming the first unknown fact or mistyped value.
Fact<FactSet> facts_from_json(const nlohmann::json& j);

nlohmann::json facts_to_json(const FactSet& facts);  // values only; missing facts are left out

}  // namespace ftdiag::facts
