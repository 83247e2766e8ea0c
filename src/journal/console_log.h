// Writes console.log (evidence/console_lines.h: one timestamped record per
// line of the job's output). A line ends at "\n", "\r\n" or a lone "\r"
// (progress bars redraw with "\r"). A line longer than kMaxLineBytes is cut
// into records of kMaxLineBytes (the last one shorter); each piece is stamped
// with the time its first byte arrived.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "evidence/console_lines.h"
#include "evidence/run_file_names.h"
#include "journal/background_sync.h"

namespace ftdiag::journal {

class WriteFailures;

class ConsoleLogWriter {
 public:
  // With `failures` (shared with the run's journal), a failed write is
  // reported there, and from the first failure of any of the run's writers
  // on nothing more is written: the space left is the journal's
  // (write_failures.h). Lines are still completed and observed.
  explicit ConsoleLogWriter(UniqueFd fd, std::shared_ptr<WriteFailures> failures = nullptr);

  // Takes a chunk of output as it arrives at `now` (seconds since the epoch).
  // Any chunking of the same bytes at the same time gives the same records.
  void feed(evidence::ConsoleStream stream, std::string_view bytes, double now);
  // Writes what is buffered. Called at each sampler tick and at every death,
  // so that at most one tick of output is ever only in our memory (feed also
  // writes whenever its buffer of kBufferBytes is full).
  void flush();
  // Ends unterminated lines (the job died mid-line) and flushes.
  void finish();

  // Not owned; nullptr (the default) for none. Called once per completed
  // record, split pieces of long lines and lines ended by finish() included.
  void set_observer(evidence::ConsoleLineObserver* observer) { observer_ = observer; }

  std::uint64_t lines_written() const { return lines_; }
  int fd() const { return fd_.get(); }
  // For the background syncer: this log's descriptor, and where its failures go.
  SyncTarget sync_target() const { return {fd_.get(), kFileName, failures_}; }

  static constexpr const char* kFileName = evidence::kConsoleFileName;

  static constexpr std::size_t kMaxLineBytes = 64 * 1024;  // longer lines are split
  // Records are buffered and written when the next one would not fit.
  static constexpr std::size_t kBufferBytes = 128 * 1024;

 private:
  // "SECONDS.MICROS L ": up to 309 digits before the point for the largest
  // double, a sign, 6 decimals and " L ".
  static constexpr std::size_t kPrefixCapacity = 336;

  // One stream's unfinished line (the bytes after its last line end) and
  // that stream's record prefix, formatted again only when the time changes.
  struct StreamState {
    std::string text;
    double started = 0;
    bool after_cr = false;  // the previous byte was a "\r": a following "\n" belongs to it
    double prefix_time = std::numeric_limits<double>::quiet_NaN();  // equal to no time: formatted at first use
    std::size_t prefix_size = 0;
    std::array<char, kPrefixCapacity> prefix{};
  };
  StreamState& state_for(evidence::ConsoleStream stream);
  void complete_line(evidence::ConsoleStream stream, StreamState& state, std::string_view text, double now);
  void keep_partial(evidence::ConsoleStream stream, StreamState& state, std::string_view text, double now);
  void emit(evidence::ConsoleStream stream, StreamState& state, double time, std::string_view text);
  void emit_pending(evidence::ConsoleStream stream, StreamState& state);
  static void format_prefix(evidence::ConsoleStream stream, StreamState& state, double time);

  UniqueFd fd_;
  std::shared_ptr<WriteFailures> failures_;
  std::array<StreamState, 3> streams_;
  std::unique_ptr<char[]> out_;  // kBufferBytes of records not yet written
  std::size_t out_size_ = 0;
  evidence::ConsoleLineObserver* observer_ = nullptr;
  std::uint64_t lines_ = 0;
};

}  // namespace ftdiag::journal
