#include "supervise/sources/usage_alarm.h"

#include "supervise/event_loop.h"
#include "supervise/last_gasp.h"
#include "supervise/memory_sampler.h"
#include "supervise/usage_alarm.h"

namespace ftdiag::supervise {

namespace {

class UsageAlarmSource final : public LiveSource {
 public:
  explicit UsageAlarmSource(SupervisedRun& run) : run_(run) {}

  void on_ready(int) override {
    if (!alarm_ || alarm_->drain() == 0) return;
    run_.take_sample();
  }

  void on_sample(const evidence::MemorySample& sample) override {
    const auto* cgroup = run_.sampler().cgroup();
    if (!cgroup || !sample.cgroup || !sample.cgroup->limit || !sample.cgroup->limit.value()) return;
    const auto limit = *sample.cgroup->limit.value();
    if (alarm_ && alarm_->cgroup_path() == cgroup->cgroup_path() && alarm_->limit() == limit) return;
    if (failed_ && !alarm_) return;
    if (alarm_) run_.loop().unwatch(alarm_->fd());
    alarm_.reset();
    auto alarm = UsageAlarm::arm(*cgroup, limit, {LastGasp::kNearThreshold, LastGasp::kThreshold});
    if (alarm && run_.loop().watch(alarm->fd(), *this)) {
      alarm_.emplace(std::move(alarm).value());
    } else if (!failed_) {
      failed_ = true;  // said once
      run_.note("no wake-up as memory nears the cgroup's limit (the last gasp relies on faster sampling): " +
                (alarm ? std::string("epoll_ctl failed") : alarm.missing().detail));
    }
  }

 private:
  SupervisedRun& run_;
  std::optional<UsageAlarm> alarm_;
  bool failed_ = false;
};

}  // namespace

// Only with the probes: the last gasp asks them for stacks.
OpenedSource open_usage_alarm(SourceSetup& setup) {
  if (!setup.run.options().probes) return nullptr;
  return std::make_unique<UsageAlarmSource>(setup.run);
}

}  // namespace ftdiag::supervise
