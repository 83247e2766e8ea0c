#include "supervise/sources/kernel_log.h"

#include <fmt/format.h>

#include "base/clock.h"
#include "base/read_file.h"
#include "collect/host/kernel_log_reader.h"

namespace ftdiag::supervise {

namespace {

// Kernel records journaled per run: past this a flooding host log is noted,
// not recorded.
constexpr std::uint64_t kMaxKernelRecordsPerRun = 100000;

// Whether the kernel logs the faults of processes that do not handle the
// signal ("segfault at ..."): debug.exception-trace, on by default.
Fact<bool> kernel_logs_faults(const collect::SystemRoots& roots) {
  auto text = read_small_file(roots.path("/proc/sys/debug/exception-trace"), 64);
  if (!text) return text.missing();
  if (!text->empty() && text->front() == '0') {
    return Missing{MissingReason::unsupported, "debug.exception-trace is 0: the kernel logs no segfault or trap lines"};
  }
  return true;
}

class KernelLog final : public LiveSource {
 public:
  KernelLog(SupervisedRun& run, collect::KernelLogReader reader) : run_(run), reader_(std::move(reader)) {}

  std::vector<int> descriptors() const override { return {reader_.fd()}; }
  void on_ready(int) override { read_records(); }
  void drain() override { read_records(); }

 private:
  void read_records() {
    const double now = wall_clock_now();
    const std::uint64_t lost = reader_.drain([&](std::string_view record) {
      if (records_++ < kMaxKernelRecordsPerRun) run_.record(evidence::KernelLogged{now, std::string(record)});
    });
    if (records_ > kMaxKernelRecordsPerRun && records_ - 1 == kMaxKernelRecordsPerRun) {
      run_.note(fmt::format("the kernel logged over {} records during the run: the rest are not recorded", kMaxKernelRecordsPerRun));
    }
    if (lost) run_.note(fmt::format("{} kernel log record(s) were overwritten before they could be read", lost));
  }

  SupervisedRun& run_;
  collect::KernelLogReader reader_;
  std::uint64_t records_ = 0;
};

}  // namespace

OpenedSource open_kernel_log(SourceSetup& setup) {
  auto reader = collect::KernelLogReader::open();
  if (!reader) {
    setup.mechanisms.emplace("kernel-log", reader.missing());
    return nullptr;
  }
  setup.mechanisms.emplace("kernel-log", true);
  setup.mechanisms.emplace("kernel-fault-lines", kernel_logs_faults(setup.run.options().roots));
  return std::make_unique<KernelLog>(setup.run, std::move(reader).value());
}

}  // namespace ftdiag::supervise
