#include "collectors/environment.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "collect/helpers/gpu_probe.h"
#include "collect/python_env/python_environment.h"
#include "collect/host/system_settings.h"

namespace ftdiag::collectors {

namespace {

// The GPU probe runs with ftdiag's own environment (FTDIAG_LIBCUDA and
// FTDIAG_LIBNVML included) and the job's choice of GPUs.
std::map<std::string, std::string> probe_environment(const std::vector<std::string>& environment) {
  std::map<std::string, std::string> out;
  for (const auto& entry : environment) {
    const auto equals = entry.find('=');
    if (equals == std::string::npos) continue;
    const auto name = entry.substr(0, equals);
    if (name == "CUDA_VISIBLE_DEVICES") {
      out[name] = entry.substr(equals + 1);
    }
  }
  return out;
}

}  // namespace

evidence::EnvironmentSnapshot collect_environment(const EnvironmentRequest& request) {
  evidence::EnvironmentSnapshot snapshot;
  snapshot.time = wall_clock_now();
  snapshot.command = request.command;
  if (request.probe_gpus) {
    collect::GpuProbeRequest gpu{.environment = probe_environment(request.environment), .deadline = request.gpu_deadline};
    snapshot.gpu = collect::probe_gpus(gpu);
  } else {
    snapshot.gpu = Missing{MissingReason::not_present, "the GPU probe was turned off (--no-gpu)"};
  }
  collect::PythonEnvironmentRequest python{.command = request.command, .interpreter = request.python,
                                           .environment = request.environment};
  snapshot.python = collect::read_python_environment(python);
  snapshot.system = collect::read_system_settings(collect::SystemRoots{});
  return snapshot;
}

}  // namespace ftdiag::collectors
