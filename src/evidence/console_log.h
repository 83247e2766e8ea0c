// console.log: the job's output, one line per record, each stamped with the
// time its first byte arrived, so log lines can be placed on the memory
// timeline:
//
//   1764405600.123456 o Saving model checkpoint to out/checkpoint-500
//   1764405600.130001 e Traceback (most recent call last):
//
// The text is the job's bytes unchanged (no escaping); "o" is stdout, "e" is
// stderr, "t" is a pseudo-terminal (stdout and stderr merged, as on a screen).
// A line ends at "\n", "\r\n" or a lone "\r" (progress bars redraw with "\r").
// A line longer than kMaxLineBytes is cut into records of kMaxLineBytes (the
// last one shorter); each piece is stamped with the time its first byte arrived.
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
#include "evidence/background_sync.h"
#include "evidence/run_file_names.h"

namespace ftdiag::evidence {

enum class ConsoleStream : char { out = 'o', err = 'e', terminal = 't' };

// Sees every record of console.log as it is completed, in the order of the
// file, without a copy (for live views of the console: the last lines, the
// training phase). Called on the thread that feeds the writer.
class ConsoleLineObserver {
 public:
  virtual ~ConsoleLineObserver() = default;
  // `text` is the record's text without its line end; it points into the
  // writer's buffer and is valid only during the call.
  virtual void on_line(double time, ConsoleStream stream, std::string_view text) = 0;
};

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
  void feed(ConsoleStream stream, std::string_view bytes, double now);
  // Writes what is buffered. Called at each sampler tick and at every death,
  // so that at most one tick of output is ever only in our memory (feed also
  // writes whenever its buffer of kBufferBytes is full).
  void flush();
  // Ends unterminated lines (the job died mid-line) and flushes.
  void finish();

  // Not owned; nullptr (the default) for none. Called once per completed
  // record, split pieces of long lines and lines ended by finish() included.
  void set_observer(ConsoleLineObserver* observer) { observer_ = observer; }

  std::uint64_t lines_written() const { return lines_; }
  int fd() const { return fd_.get(); }
  // For the background syncer: this log's descriptor, and where its failures go.
  SyncTarget sync_target() const { return {fd_.get(), kFileName, failures_}; }

  static constexpr const char* kFileName = kConsoleFileName;

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
  StreamState& state_for(ConsoleStream stream);
  void complete_line(ConsoleStream stream, StreamState& state, std::string_view text, double now);
  void keep_partial(ConsoleStream stream, StreamState& state, std::string_view text, double now);
  void emit(ConsoleStream stream, StreamState& state, double time, std::string_view text);
  void emit_pending(ConsoleStream stream, StreamState& state);
  static void format_prefix(ConsoleStream stream, StreamState& state, double time);

  UniqueFd fd_;
  std::shared_ptr<WriteFailures> failures_;
  std::array<StreamState, 3> streams_;
  std::unique_ptr<char[]> out_;  // kBufferBytes of records not yet written
  std::size_t out_size_ = 0;
  ConsoleLineObserver* observer_ = nullptr;
  std::uint64_t lines_ = 0;
};

struct ConsoleLine {
  double time = 0;
  char stream = 'o';
  std::string text;

  bool operator==(const ConsoleLine&) const = default;
};

// Parses one line of console.log (without its "\n"). Missing for a line that
// does not start with a timestamp and stream letter.
Fact<ConsoleLine> parse_console_line(std::string_view line);

}  // namespace ftdiag::evidence
