#include "supervise/sources/gpu_watch.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>

#include <fmt/format.h>

#include "parse/probes/gpu_probe_output.h"
#include "collect/helpers/probe_location.h"
#include "supervise/event_loop.h"
#include "supervise/process_tracker.h"
#include "supervise/side_program.h"

namespace ftdiag::supervise {

namespace {

// A line longer than any sample can be is not one: dropped rather than kept growing.
constexpr std::size_t kMaxGpuWatchLineBytes = 1u << 20;

class GpuWatch final : public LiveSource {
 public:
  explicit GpuWatch(SupervisedRun& run) : run_(run) {}

  void job_started() override {
    auto probe = collect::find_probe_file("ftdiag-gpu-probe");
    if (!probe) return;  // an install without the probe: the environment snapshot says so
    const auto interval_ms = std::max(100L, std::lround(run_.options().gpu_interval_s * 1000));
    auto started = SideProgram::start({probe.value().string(), "--watch", std::to_string(interval_ms)}, /*capture_output=*/true);
    if (!started) {
      run_.note(fmt::format("GPU memory is not sampled: {}", started.missing().detail));
      return;
    }
    program_.emplace(std::move(started).value());
    run_.tracker().exclude(program_->pid());
    if (!run_.loop().watch(program_->output(), *this)) {
      program_->stop();
      run_.tracker().forget_excluded(program_->pid());
      program_.reset();
    }
  }

  bool claims_exit(pid_t pid, int wait_status) override {
    if (!program_ || program_->pid() != pid) return false;
    program_->ended(wait_status);
    return true;
  }

  void on_ready(int) override { read_lines(); }
  void drain() override { read_lines(); }

  void close() override {
    if (!program_) return;
    program_->stop();
    run_.tracker().forget_excluded(program_->pid());
  }

 private:
  void read_lines() {
    if (!program_ || program_->output() < 0) return;
    char chunk[16384];
    bool ended = false;
    for (;;) {
      const ssize_t n = ::read(program_->output(), chunk, sizeof chunk);
      if (n > 0) {
        buffer_.append(chunk, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      ended = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK);
      break;
    }
    std::size_t start = 0;
    for (std::size_t newline; (newline = buffer_.find('\n', start)) != std::string::npos; start = newline + 1) {
      const std::string_view line(buffer_.data() + start, newline - start);
      if (!inventory_seen_) {
        // The first line is the inventory; environment.json keeps it. No GPU
        // (or no NVML) to sample: nothing to watch.
        inventory_seen_ = true;
        auto inventory = parse::parse_gpu_inventory(line);
        if (!inventory || inventory->devices.empty()) ended = true;
        continue;
      }
      if (auto sample = parse::parse_gpu_sample_line(line)) run_.record(std::move(*sample));
    }
    buffer_.erase(0, start);
    if (buffer_.size() > kMaxGpuWatchLineBytes) buffer_.clear();
    if (ended) {
      run_.loop().unwatch(program_->output());
      program_->close_output();
    }
  }

  SupervisedRun& run_;
  std::optional<SideProgram> program_;
  std::string buffer_;  // a line not yet ended
  bool inventory_seen_ = false;
};

}  // namespace

OpenedSource open_gpu_watch(SourceSetup& setup) {
  if (!setup.run.options().gpu_watch) return nullptr;
  return std::make_unique<GpuWatch>(setup.run);
}

}  // namespace ftdiag::supervise
