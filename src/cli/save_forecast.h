// `ftdiag run`'s forecast of the job's first checkpoint save: the job's
// setup read from the configs its command names (collect/configs/
// command_configs.h), the memory model (the estimate.* facts, set as the
// post-mortem sets them) with the rank's baseline measured while the job
// trains, and the check rules preflight runs ("checkpoint-save-will-not-fit"
// and its kin) to word the warning and its fix.
#pragma once

#include <string>
#include <vector>

#include "supervise/save_forecast.h"

namespace ftdiag::cli {

// The factory SupervisorOptions::save_forecaster takes: reads the command's
// configs and the rules (`rule_dirs` beside the built-in ones) when called,
// once the job has started.
supervise::SaveForecasterFactory save_forecaster_for(std::vector<std::string> argv, std::vector<std::string> rule_dirs);

}  // namespace ftdiag::cli
