// What `ftdiag run` asks of a forecast of the job's checkpoint save: given
// the memory the job holds once it trains, the peak its first save will
// reach and whether that fits. The supervision only measures and warns; the
// forecast itself (the job's configs, the memory model, the check rules
// that word the warning) is made above it, by the command line (cli/), and
// handed in through SupervisorOptions.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <variant>

#include "evidence/records.h"

namespace ftdiag::supervise {

// Where the job's memory was measured and what it may use.
struct MeasuredMemory {
  double held_bytes = 0;      // the job's memory now: its cgroup's usage under a limit, else its summed RSS
  double capacity_bytes = 0;  // the cgroup's limit, or the node's RAM when lower or when there is none
  std::string capacity_source;
};

class SaveForecaster {
 public:
  virtual ~SaveForecaster() = default;
  // The forecast for the job holding `measured` now (the time is the caller's).
  virtual evidence::SaveForecast forecast(const MeasuredMemory& measured) = 0;
};

// Made once the job has started (it reads the job's configs, off the job's
// path); or why there is nothing to forecast from, printable: empty when the
// command is no DeepSpeed job at all (nothing to say), else what it lacks
// (the model's size, a config that could not be read), noted in the journal.
using MadeForecaster = std::variant<std::unique_ptr<SaveForecaster>, std::string>;
using SaveForecasterFactory = std::function<MadeForecaster()>;

}  // namespace ftdiag::supervise
