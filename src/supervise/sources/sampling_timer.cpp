#include "supervise/sources/sampling_timer.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "base/unique_fd.h"
#include "supervise/memory_sampler.h"
#include "supervise/process_tracker.h"

namespace ftdiag::supervise {

namespace {

// While process events keep the tree current (the process connector), a
// full /proc scan every this many ticks double-checks it; without them,
// every tick scans.
constexpr int kScanEveryTicksWithEvents = 20;
constexpr int kRelocateCgroupEveryTicks = 10;
constexpr int kSyncEveryTicks = 10;

itimerspec period_of(double seconds) {
  itimerspec period{};
  period.it_interval.tv_sec = static_cast<time_t>(seconds);
  period.it_interval.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
  period.it_value = period.it_interval;
  return period;
}

class SamplingTimer final : public LiveSource {
 public:
  SamplingTimer(SupervisedRun& run, UniqueFd fd, double interval) : run_(run), fd_(std::move(fd)), interval_(interval) {}

  std::vector<int> descriptors() const override { return {fd_.get()}; }

  void on_ready(int) override {
    std::uint64_t expirations = 0;
    [[maybe_unused]] auto n = ::read(fd_.get(), &expirations, sizeof expirations);
    ++ticks_;
    if (!run_.tracker().kept_current_by_events() || ticks_ % kScanEveryTicksWithEvents == 0) run_.scan_tree();
    if (!run_.job_ended() && ticks_ % kRelocateCgroupEveryTicks == 0 && run_.sampler().locate_cgroup_of(run_.job_pid())) {
      run_.note("the job moved to another memory cgroup");
    }
    run_.take_sample();
    run_.console().flush();
    if (ticks_ % kSyncEveryTicks == 0) run_.request_sync();
  }

  // Samples faster while memory is near its limit or stacks are awaited, so
  // the last gasp comes before the kill, not after.
  void on_sample(const evidence::MemorySample&) override {
    const double wanted = run_.wanted_sample_interval();
    if (wanted == interval_) return;
    const itimerspec period = period_of(wanted);
    if (::timerfd_settime(fd_.get(), 0, &period, nullptr) == 0) interval_ = wanted;
  }

 private:
  SupervisedRun& run_;
  UniqueFd fd_;
  double interval_;  // as the timer is armed now
  std::uint64_t ticks_ = 0;
};

}  // namespace

OpenedSource open_sampling_timer(SourceSetup& setup) {
  const char* const what = "watch the job";
  const double interval = setup.run.options().sample_interval_s;
  if (!std::isfinite(interval) || interval < 1e-3) {
    return SupervisorFailure{kExitCannotSupervise, fmt::format("ftdiag: invalid sample interval {} s", interval),
                             setup.run.run_directory().path()};
  }
  UniqueFd fd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!fd.valid()) return cannot_supervise(what, "timerfd_create", errno, setup.run);
  const itimerspec period = period_of(interval);
  if (::timerfd_settime(fd.get(), 0, &period, nullptr) != 0) return cannot_supervise(what, "timerfd_settime", errno, setup.run);
  return std::make_unique<SamplingTimer>(setup.run, std::move(fd), interval);
}

}  // namespace ftdiag::supervise
