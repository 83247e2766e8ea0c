// The environment a job runs in, read in one go for `ftdiag preflight` and
// for the snapshot `ftdiag run` takes beside the job: the GPUs (probes/gpu,
// in its own process, with a deadline), the Python installation the command
// will use (read from files), and the host's settings.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "journal/environment_file.h"

namespace ftdiag::collectors {

struct EnvironmentRequest {
  std::vector<std::string> command;       // the job's command; may be empty
  std::optional<std::string> python;      // --python: the interpreter, whatever the command says
  std::vector<std::string> environment;   // the job's, "NAME=value" each
  bool probe_gpus = true;
  std::chrono::milliseconds gpu_deadline{15000};
};

evidence::EnvironmentSnapshot collect_environment(const EnvironmentRequest& request);

}  // namespace ftdiag::collectors
