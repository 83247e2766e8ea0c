#include "collectors/read_progress.h"

#include <fmt/format.h>

namespace ftdiag::collectors {

namespace {

// Bytes in the unit of the total, so that both figures read alike.
std::string in_unit(std::uint64_t bytes, std::uint64_t total) {
  if (total >= 1'000'000'000) return fmt::format("{:.1f} GB", static_cast<double>(bytes) / 1e9);
  return fmt::format("{:.0f} MB", static_cast<double>(bytes) / 1e6);
}

void write_all(int fd, const std::string& text) {
  std::size_t at = 0;
  while (at < text.size()) {
    const ssize_t n = ::write(fd, text.data() + at, text.size() - at);
    if (n <= 0) return;  // a progress line is not worth retrying for
    at += static_cast<std::size_t>(n);
  }
}

}  // namespace

std::string read_progress_line(std::uint64_t done, std::uint64_t total, double seconds) {
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  const std::string speed = rate >= 1e9 ? fmt::format("{:.1f} GB/s", rate / 1e9) : fmt::format("{:.0f} MB/s", rate / 1e6);
  return fmt::format("ftdiag: reading logs {} of {} ({})", in_unit(done, total), in_unit(total, total), speed);
}

ReadProgress::ReadProgress(std::uint64_t total_bytes, int fd, Timing timing)
    : total_(total_bytes), fd_(fd), timing_(timing) {
  if (total_ > 0 && ::isatty(fd_) == 1) reporter_ = std::thread([this] { report_until_stopped(); });
}

ReadProgress::~ReadProgress() {
  if (!reporter_.joinable()) return;
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  reporter_.join();
}

void ReadProgress::report_until_stopped() {
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock lock(mutex_);
  bool wrote = false;
  if (!wake_.wait_for(lock, timing_.first_after, [this] { return stop_; })) {
    do {
      const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
      // "\x1b[K" erases what a longer line before left on the right.
      write_all(fd_, "\r" + read_progress_line(bytes_read_.load(std::memory_order_relaxed), total_, elapsed.count()) +
                         "\x1b[K");
      wrote = true;
    } while (!wake_.wait_for(lock, timing_.every, [this] { return stop_; }));
  }
  if (wrote) write_all(fd_, "\r\x1b[K");
}

}  // namespace ftdiag::collectors
