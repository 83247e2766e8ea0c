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
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag::evidence {

enum class ConsoleStream : char { out = 'o', err = 'e', terminal = 't' };

class ConsoleLogWriter {
 public:
  explicit ConsoleLogWriter(UniqueFd fd) : fd_(std::move(fd)) {}

  // Takes a chunk of output as it arrives at `now` (seconds since the epoch).
  void feed(ConsoleStream stream, std::string_view bytes, double now);
  // Writes what is buffered. Called at each sampler tick and at every death,
  // so that at most one tick of output is ever only in our memory.
  void flush();
  // Ends unterminated lines (the job died mid-line) and flushes.
  void finish();

  std::uint64_t lines_written() const { return lines_; }
  int fd() const { return fd_.get(); }

  static constexpr std::size_t kMaxLineBytes = 64 * 1024;  // longer lines are split

 private:
  struct Pending {
    std::string text;
    double started = 0;
    bool after_cr = false;  // the previous byte was a "\r": a following "\n" belongs to it
  };
  Pending& pending_for(ConsoleStream stream);
  void end_line(ConsoleStream stream, Pending& pending);

  UniqueFd fd_;
  std::array<Pending, 3> pending_;
  std::string out_;
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
