#include "watch.h"

#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "json_output.h"

namespace gpu_probe {

namespace {

double wall_clock_now() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

std::vector<SampleDevice> sample(const Inventory& inventory, const NvmlSession& nvml) {
  std::vector<SampleDevice> devices;
  for (const auto& device : inventory.devices) {
    if (device.nvml_index < 0) continue;
    auto usage = read_usage(nvml, device.nvml_index, nullptr);
    devices.push_back(SampleDevice{device.index, usage.memory_used_bytes, std::move(usage.processes)});
  }
  cap_processes(devices);
  return devices;
}

// Sleeps until `deadline` on the monotonic clock (steps of the wall clock
// neither shorten nor stretch an interval), then moves it one interval on.
void sleep_until_next(timespec& deadline, long interval_ms) {
  deadline.tv_sec += interval_ms / 1000;
  deadline.tv_nsec += (interval_ms % 1000) * 1000000L;
  if (deadline.tv_nsec >= 1000000000L) {
    deadline.tv_sec += 1;
    deadline.tv_nsec -= 1000000000L;
  }
  while (::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &deadline, nullptr) == EINTR) {
  }
}

}  // namespace

void watch(const Inventory& inventory, const NvmlSession& nvml, long interval_ms, pid_t parent) {
  // SIGTERM when the parent dies; the check after it covers a parent that
  // died before the request was made.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  timespec deadline{};
  ::clock_gettime(CLOCK_MONOTONIC, &deadline);
  while (::getppid() == parent) {
    if (!print_line(sample_json(wall_clock_now(), sample(inventory, nvml)))) return;
    sleep_until_next(deadline, interval_ms);
  }
}

}  // namespace gpu_probe
