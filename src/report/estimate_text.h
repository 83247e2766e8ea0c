// `ftdiag estimate` as a terminal table: per GPU, host memory per node,
// DeepSpeed's own estimator, and the advice with every option's numbers.
#pragma once

#include <string>

#include "estimate/advisor.h"
#include "estimate/memory_estimate.h"

namespace ftdiag::report {

std::string render_estimate(const estimate::MemoryEstimate& estimate, const estimate::Resources& resources,
                            const estimate::Advice& advice);

}  // namespace ftdiag::report
