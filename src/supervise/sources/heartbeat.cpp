#include "supervise/sources/heartbeat.h"

#include <sys/timerfd.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>

#include "base/clock.h"
#include "base/unique_fd.h"

namespace ftdiag::supervise {

namespace {

class HeartbeatSource final : public LiveSource {
 public:
  HeartbeatSource(SupervisedRun& run, UniqueFd fd) : run_(run), fd_(std::move(fd)) {}

  std::vector<int> descriptors() const override { return {fd_.get()}; }

  void on_ready(int) override {
    std::uint64_t expirations = 0;
    [[maybe_unused]] auto n = ::read(fd_.get(), &expirations, sizeof expirations);
    // Synced off the event loop (journal/background_sync.h): the beat is
    // durable a moment later, never at the cost of the job's output.
    run_.record(evidence::Heartbeat{wall_clock_now(), ++sequence_});
    run_.request_sync();
  }

 private:
  SupervisedRun& run_;
  UniqueFd fd_;
  std::uint64_t sequence_ = 0;
};

}  // namespace

OpenedSource open_heartbeat(SourceSetup& setup) {
  const double interval = setup.run.options().heartbeat_interval_s;
  if (!std::isfinite(interval) || interval <= 0) return nullptr;
  UniqueFd fd(::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC));
  if (!fd.valid()) return cannot_supervise("keep a heartbeat", "timerfd_create", errno, setup.run);
  itimerspec period{};
  period.it_interval.tv_sec = static_cast<time_t>(interval);
  period.it_interval.tv_nsec = static_cast<long>((interval - std::floor(interval)) * 1e9);
  period.it_value = period.it_interval;
  if (::timerfd_settime(fd.get(), 0, &period, nullptr) != 0) {
    return cannot_supervise("keep a heartbeat", "timerfd_settime", errno, setup.run);
  }
  return std::make_unique<HeartbeatSource>(setup.run, std::move(fd));
}

}  // namespace ftdiag::supervise
