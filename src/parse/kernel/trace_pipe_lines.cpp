#include "parse/kernel/trace_pipe_lines.h"

namespace ftdiag::parse {

void TracePipeLines::feed(std::string_view chunk, const std::function<void(std::string_view)>& line) {
  while (!chunk.empty()) {
    const auto newline = chunk.find('\n');
    if (newline == std::string_view::npos) {
      keep_tail(chunk);
      return;
    }
    const std::string_view piece = chunk.substr(0, newline);
    chunk.remove_prefix(newline + 1);
    if (discarding_) {
      discarding_ = false;  // the overlong line ends here
      continue;
    }
    if (pending_.empty()) {
      line(piece);
      continue;
    }
    keep_tail(piece);
    if (discarding_) {
      discarding_ = false;
      continue;
    }
    line(pending_);
    pending_.clear();
  }
}

void TracePipeLines::keep_tail(std::string_view tail) {
  if (discarding_) return;
  if (pending_.size() + tail.size() > max_line_bytes_) {
    pending_.clear();
    discarding_ = true;
    ++overlong_lines_;
    return;
  }
  pending_.append(tail);
}

}  // namespace ftdiag::parse
