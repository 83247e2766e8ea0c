// ftdiag-gpu-probe: asks the NVIDIA driver (libcuda, NVML) what GPUs there
// are and what they hold, and prints it as JSON (docs/probes.md, "The GPU
// probe"). ftdiag runs it as a process of its own under a deadline, because
// a broken driver install crashes or hangs inside cuInit: that costs this
// process, never ftdiag.
//
//   ftdiag-gpu-probe                     one inventory document
//   ftdiag-gpu-probe --watch 500         the inventory, then a sample every 500 ms
//
// Exit status 0 whenever a document was printed, even without a driver (the
// document's "problems" say why); 2 for a usage error.
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_query.h"
#include "join.h"
#include "json_output.h"
#include "nvml_query.h"
#include "watch.h"

namespace {

constexpr long kMaxIntervalMs = 3600L * 1000;

int usage() {
  ::fprintf(stderr, "usage: ftdiag-gpu-probe [--watch MILLISECONDS]\n");
  return 2;
}

// The --watch interval, or 0 when there is none; -1 for a bad command line.
long parse_arguments(int argc, char** argv) {
  if (argc == 1) return 0;
  if (argc != 3 || ::strcmp(argv[1], "--watch") != 0) return -1;
  char* end = nullptr;
  const long interval = ::strtol(argv[2], &end, 10);
  if (end == argv[2] || *end != '\0' || interval < 1 || interval > kMaxIntervalMs) return -1;
  return interval;
}

}  // namespace

int main(int argc, char** argv) {
  const pid_t parent = ::getppid();
  const long interval_ms = parse_arguments(argc, argv);
  if (interval_ms < 0) return usage();
  // A closed stdout is an EPIPE to return on, not a death by signal.
  ::signal(SIGPIPE, SIG_IGN);

  std::vector<std::string> problems;
  gpu_probe::CudaFindings cuda = gpu_probe::query_cuda(problems);
  std::optional<gpu_probe::NvmlSession> nvml = gpu_probe::open_nvml(problems);
  const gpu_probe::Inventory inventory =
      gpu_probe::join_findings(std::move(cuda), nvml ? &*nvml : nullptr, std::move(problems));
  if (!gpu_probe::print_line(gpu_probe::inventory_json(inventory))) return 1;
  // Without NVML there is nothing to sample: the inventory says why.
  if (interval_ms > 0 && nvml) gpu_probe::watch(inventory, *nvml, interval_ms, parent);
  if (nvml) gpu_probe::close_nvml(*nvml);
  return 0;
}
