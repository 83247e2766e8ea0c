// A one-line progress report while `ftdiag analyze` reads large logs:
//
//   ftdiag: reading logs 3.2 GB of 10.0 GB (1.1 GB/s)
//
// redrawn in place with "\r" about twice a second once the reading has taken
// a second, and erased when it ends. Only on a terminal: when the stream is
// a pipe or a file (scripts, tests, `--format json > out`) nothing is
// written. The readers only add to an atomic counter; a thread of its own
// reads it and writes the line, so the scanner stays free of output.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace ftdiag::collectors {

// The line for `done` of `total` bytes read in `seconds` (without "\r").
std::string read_progress_line(std::uint64_t done, std::uint64_t total, double seconds);

struct ReadProgressTiming {
  std::chrono::milliseconds first_after{1000};  // nothing for reads shorter than this
  std::chrono::milliseconds every{500};
};

class ReadProgress {
 public:
  using Timing = ReadProgressTiming;

  // Reports on `fd` (default stderr) when it is a terminal and there is
  // something to read; otherwise does nothing at all.
  explicit ReadProgress(std::uint64_t total_bytes, int fd = STDERR_FILENO, Timing timing = {});
  ReadProgress(const ReadProgress&) = delete;
  ReadProgress& operator=(const ReadProgress&) = delete;
  // Stops the reporter and erases its line, if it wrote one.
  ~ReadProgress();

  // Where readers add the bytes they have read (any thread).
  std::atomic<std::uint64_t>& bytes_read() { return bytes_read_; }
  bool reporting() const { return reporter_.joinable(); }

 private:
  void report_until_stopped();

  const std::uint64_t total_;
  const int fd_;
  const Timing timing_;
  std::atomic<std::uint64_t> bytes_read_{0};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread reporter_;
};

}  // namespace ftdiag::collectors
