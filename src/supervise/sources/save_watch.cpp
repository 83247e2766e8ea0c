#include "supervise/sources/save_watch.h"

#include <unistd.h>

#include <algorithm>
#include <deque>

#include "base/clock.h"

namespace ftdiag::supervise {

namespace {

// Memory stands still when the last kLevelSamples samples lie within
// kLevelSpread of their highest; a job whose memory never does is forecast
// from where it stands after kMaxWaitSamples samples of training.
constexpr std::size_t kLevelSamples = 4;
constexpr double kLevelSpread = 0.05;
constexpr std::size_t kMaxWaitSamples = 40;
// Memory that grows this much past the last forecast's is forecast again.
constexpr double kRegrowth = 1.05;

// What the job holds and may use: its cgroup's usage under a limit (the
// limit binds it), else its processes' summed RSS against the node's RAM.
std::optional<MeasuredMemory> measure(const evidence::MemorySample& sample) {
  MeasuredMemory measured;
  const auto ram = sample.node.mem_total ? std::optional<double>(static_cast<double>(sample.node.mem_total.value())) : std::nullopt;
  if (sample.cgroup && sample.cgroup->usage && sample.cgroup->limit && sample.cgroup->limit.value()) {
    const double limit = static_cast<double>(*sample.cgroup->limit.value());
    measured.held_bytes = static_cast<double>(sample.cgroup->usage.value());
    if (!ram || limit <= *ram) {
      measured.capacity_bytes = limit;
      measured.capacity_source = "the job's cgroup limit";
      return measured;
    }
    measured.capacity_bytes = *ram;
    measured.capacity_source = "the node's RAM";
    return measured;
  }
  if (!ram) return std::nullopt;
  for (const auto& process : sample.processes) {
    if (process.rss) measured.held_bytes += static_cast<double>(process.rss.value());
  }
  if (measured.held_bytes <= 0) return std::nullopt;
  measured.capacity_bytes = *ram;
  measured.capacity_source = "the node's RAM";
  return measured;
}

class SaveWatch final : public LiveSource {
 public:
  explicit SaveWatch(SupervisedRun& run) : run_(run) {}

  void on_ready(int) override {}

  void job_started() override {
    try {
      auto made = run_.options().save_forecaster();
      if (auto* forecaster = std::get_if<std::unique_ptr<SaveForecaster>>(&made)) {
        forecaster_ = std::move(*forecaster);
      } else if (const auto& why = std::get<std::string>(made); !why.empty()) {
        run_.note("no forecast of the checkpoint save: " + why);
      }
    } catch (const std::exception& e) {
      run_.note(std::string("no forecast of the checkpoint save: ") + e.what());
    }
  }

  void on_sample(const evidence::MemorySample& sample) override {
    if (!forecaster_ || over_) return;
    const auto* phase = run_.console_phase();
    if (!phase) return;
    if (phase->phase == "checkpoint-save") {
      // The first save began: what it needs is no longer a forecast.
      if (!forecast_made_) run_.note("no forecast of the checkpoint save: it began before training's memory stood still");
      over_ = true;
      return;
    }
    // Training has begun once a second line says so (a framework announces
    // it first, "***** Running training *****"): the optimizer's states are
    // made at the first step.
    if (phase->phase != "training" || phase->lines < 2) return;
    const auto measured = measure(sample);
    if (!measured) return;
    ++training_samples_;
    recent_.push_back(measured->held_bytes);
    if (recent_.size() > kLevelSamples) recent_.pop_front();
    if (!forecast_made_) {
      if (recent_.size() < kLevelSamples) return;
      const auto [low, high] = std::minmax_element(recent_.begin(), recent_.end());
      if ((*high - *low) > kLevelSpread * *high && training_samples_ < kMaxWaitSamples) return;
    } else if (measured->held_bytes < kRegrowth * last_held_) {
      return;
    }
    forecast(*measured);
  }

 private:
  void forecast(const MeasuredMemory& measured) {
    evidence::SaveForecast made;
    try {
      made = forecaster_->forecast(measured);
    } catch (const std::exception& e) {
      run_.note(std::string("no forecast of the checkpoint save: ") + e.what());
      over_ = true;
      return;
    }
    made.time = wall_clock_now();
    last_held_ = measured.held_bytes;
    const bool first = !forecast_made_;
    forecast_made_ = true;
    if (made.fits) {
      if (first) run_.record(made);
      return;
    }
    // Said once: on the terminal now, and in the journal, synced (the save
    // that follows may take ftdiag's memory too).
    over_ = true;
    if (!made.warning.empty()) {
      const auto& text = made.warning;
      for (std::size_t written = 0; written < text.size();) {
        const ssize_t n = ::write(STDERR_FILENO, text.data() + written, text.size() - written);
        if (n <= 0) break;
        written += static_cast<std::size_t>(n);
      }
    }
    run_.record_durable(made);
  }

  SupervisedRun& run_;
  std::unique_ptr<SaveForecaster> forecaster_;
  std::deque<double> recent_;
  std::size_t training_samples_ = 0;
  double last_held_ = 0;
  bool forecast_made_ = false;
  bool over_ = false;  // warned, or the save began
};

}  // namespace

OpenedSource open_save_watch(SourceSetup& setup) {
  if (!setup.run.options().save_forecaster) return nullptr;
  return std::make_unique<SaveWatch>(setup.run);
}

}  // namespace ftdiag::supervise
