// Lines quoted from a log into evidence are bounded: a line longer than the
// limit keeps its head and its tail around a marker saying how many bytes
// were left out between ("… [104857600 bytes elided] …"), so a 100 MB
// console line costs a few KiB of evidence and still shows how it began and
// how it ended.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ftdiag::evidence {

// `line` whole when it fits max_bytes (plus the marker's few bytes), else
// its head and tail around the marker; no UTF-8 character is cut in two.
std::string quoted_line(std::string_view line, std::size_t max_bytes);

// The marker for `elided` bytes left out of a line.
std::string elision_marker(std::uint64_t elided);

// The end of a line whose start was not read (a line longer than the bytes
// read from the end of a file): its last max_bytes after a marker saying
// that over so many bytes before them were left out. Its head is not known,
// so none is shown, and the count is a floor, not a total.
std::string quoted_line_end(std::string_view end_of_line, std::size_t max_bytes);

// Cuts a stream of bytes into lines ("\n"), keeping at most `max_bytes` of
// each as quoted_line does, whatever the line's length: memory stays bounded
// by max_bytes whatever the input.
class BoundedLineCutter {
 public:
  explicit BoundedLineCutter(std::size_t max_bytes) : max_bytes_(max_bytes) {}

  // sink(std::string_view line) for each line completed by `bytes`.
  template <class Sink>
  void feed(std::string_view bytes, Sink&& sink) {
    while (!bytes.empty()) {
      const auto newline = bytes.find('\n');
      append(bytes.substr(0, newline));
      if (newline == std::string_view::npos) return;
      sink(std::string_view(take()));
      bytes.remove_prefix(newline + 1);
    }
  }

  // The last line when it had no "\n".
  template <class Sink>
  void finish(Sink&& sink) {
    if (!head_.empty() || elided_ > 0) sink(std::string_view(take()));
  }

 private:
  void append(std::string_view part);
  const std::string& take();

  std::size_t max_bytes_;
  std::string head_;
  std::string tail_;  // a ring of the last bytes once the head is full
  std::size_t tail_start_ = 0;
  std::uint64_t elided_ = 0;
  std::string line_;
};

}  // namespace ftdiag::evidence
