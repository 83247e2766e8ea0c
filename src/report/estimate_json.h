// `ftdiag estimate --format json`: the estimate, DeepSpeed's own figures and
// the advice as one JSON object (docs/report-json.md, "Estimate").
#pragma once

#include <nlohmann/json.hpp>

#include "estimate/advisor.h"
#include "estimate/memory_estimate.h"

namespace ftdiag::report {

inline constexpr int kEstimateSchemaVersion = 1;

nlohmann::json estimate_to_json(const estimate::MemoryEstimate& estimate, const estimate::Resources& resources,
                                const estimate::Advice& advice);

}  // namespace ftdiag::report
