// Whole lines out of the chunks a non-blocking read of a tracefs trace_pipe
// returns. The kernel fills a read with whole records when it can, but a
// short buffer or a signal can end one mid-line, so the tail is kept for the
// next chunk. What is kept is bounded: a line that would need more than
// max_line_bytes of it is not a record we parse, and is dropped (and counted)
// instead of growing without end. A complete line within one chunk needs no
// keeping and is passed on whatever its length.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace ftdiag::parse {

class TracePipeLines {
 public:
  // A signal_generate line is under 200 bytes; 4 KiB leaves room for any
  // other event's line without letting garbage pile up.
  static constexpr std::size_t kDefaultMaxLineBytes = 4096;

  explicit TracePipeLines(std::size_t max_line_bytes = kDefaultMaxLineBytes) : max_line_bytes_(max_line_bytes) {}

  // Calls `line` with each complete line of `chunk` (without its '\n'), the
  // first one joined to what the previous chunks left. The views are valid
  // only during the call.
  void feed(std::string_view chunk, const std::function<void(std::string_view)>& line);

  // Bytes of an incomplete line waiting for its end.
  std::size_t pending_bytes() const { return pending_.size(); }
  // Lines dropped for being longer than the bound.
  std::uint64_t overlong_lines() const { return overlong_lines_; }

 private:
  void keep_tail(std::string_view tail);

  std::size_t max_line_bytes_;
  std::string pending_;
  bool discarding_ = false;  // inside an overlong line: drop up to its '\n'
  std::uint64_t overlong_lines_ = 0;
};

}  // namespace ftdiag::parse
