#include "evidence/quoted_line.h"

#include <algorithm>

#include <fmt/format.h>

namespace ftdiag::evidence {

namespace {

bool continuation_byte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// The first `bytes` of text, shortened so that no character is cut.
std::string_view head_of(std::string_view text, std::size_t bytes) {
  if (bytes >= text.size()) return text;
  while (bytes > 0 && continuation_byte(text[bytes])) --bytes;
  return text.substr(0, bytes);
}

// The last `bytes` of text, shortened so that no character is cut.
std::string_view tail_of(std::string_view text, std::size_t bytes) {
  if (bytes >= text.size()) return text;
  std::size_t from = text.size() - bytes;
  while (from < text.size() && continuation_byte(text[from])) ++from;
  return text.substr(from);
}

}  // namespace

std::string elision_marker(std::uint64_t elided) { return fmt::format(" … [{} bytes elided] … ", elided); }

std::string quoted_line(std::string_view line, std::size_t max_bytes) {
  if (line.size() <= max_bytes) return std::string(line);
  const std::string_view head = head_of(line, max_bytes / 2);
  const std::string_view tail = tail_of(line, max_bytes - max_bytes / 2);
  const std::uint64_t elided = line.size() - head.size() - tail.size();
  std::string out;
  out.reserve(max_bytes + 48);
  out.append(head);
  out += elision_marker(elided);
  out.append(tail);
  return out;
}

std::string quoted_line_end(std::string_view end_of_line, std::size_t max_bytes) {
  const std::string_view tail = tail_of(end_of_line, max_bytes);
  return fmt::format(" … [over {} bytes elided] … ", end_of_line.size() - tail.size()) + std::string(tail);
}

void BoundedLineCutter::append(std::string_view part) {
  const std::size_t head_bytes = max_bytes_ / 2;
  const std::size_t tail_bytes = max_bytes_ - head_bytes;
  if (head_.size() < head_bytes) {
    const std::size_t room = head_bytes - head_.size();
    head_.append(part.substr(0, room));
    part.remove_prefix(std::min(room, part.size()));
  }
  // Past the head: the last tail_bytes are kept in a ring, older ones counted.
  for (char c : part) {
    if (tail_.size() < tail_bytes) {
      tail_.push_back(c);
      continue;
    }
    tail_[tail_start_] = c;
    tail_start_ = (tail_start_ + 1) % tail_bytes;
    ++elided_;
  }
}

const std::string& BoundedLineCutter::take() {
  line_ = std::move(head_);
  head_.clear();
  if (elided_ > 0) {
    // The tail starts at a whole character (the JSON writer replaces a
    // character the head's end cuts).
    std::string tail = tail_.substr(tail_start_) + tail_.substr(0, tail_start_);
    std::size_t from = 0;
    while (from < tail.size() && continuation_byte(tail[from])) ++from;
    line_ += elision_marker(elided_ + from);
    line_.append(tail, from);
  } else {
    line_ += tail_;
  }
  tail_.clear();
  tail_start_ = 0;
  elided_ = 0;
  return line_;
}

}  // namespace ftdiag::evidence
