// The estimate.* facts for a model and a training setup already chosen: the
// post-mortem (extract_estimate.cpp, the baseline measured from the run's
// memory curve) and `ftdiag run`'s forecast of the checkpoint save (the
// baseline measured live, while the job trains) set them the same way, so
// the check rules read them the same way.
#pragma once

#include <string>

#include "estimate/training_setup.h"
#include "facts/estimate_inputs.h"
#include "facts/fact_set.h"

namespace ftdiag::facts {

// The predictions (save peak, host steady and peak, per-GPU states) and,
// where the facts hold the memory the node gives the job (cgroup.limit_bytes,
// host.cgroup_limit_bytes, node.mem_total_bytes or host.mem_total_bytes, the
// lowest), the ratios to it and the remedies' numbers. `setup_pointer` and
// `baseline_pointer` say where the setup and the rank's baseline came from.
void set_estimate_facts(const ModelFromEvidence& model, const estimate::TrainingSetup& setup, const std::string& setup_pointer,
                        const std::string& baseline_pointer, FactSet& facts);

}  // namespace ftdiag::facts
