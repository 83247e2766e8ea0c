// Text output for the crash record that is safe inside a signal handler:
// numbers are formatted by hand into a fixed buffer owned by the writer, and
// the buffer goes out with write(2) when it fills or on flush(). Nothing
// allocates, locks or calls stdio (signal-safety(7) lists write as safe).
//
// A failed write (a full disk, a closed descriptor) makes every later call a
// no-op: the record stops where the file stops, which its reader tolerates.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ftdiag::crash {

class RecordWriter {
 public:
  // Does not own fd; the caller closes it after flush().
  explicit RecordWriter(int fd) : fd_(fd) {}
  RecordWriter(const RecordWriter&) = delete;
  RecordWriter& operator=(const RecordWriter&) = delete;

  RecordWriter& text(const char* nul_terminated);
  RecordWriter& bytes(const char* data, std::size_t size);
  RecordWriter& dec(std::uint64_t value);
  RecordWriter& dec_signed(std::int64_t value);
  // At least `width` digits, zero-padded (the microseconds of a time).
  RecordWriter& dec_padded(std::uint64_t value, int width);
  // "0x" then lowercase hex digits without padding: 0x0, 0x7ffd9a3c1e80.
  RecordWriter& hex(std::uint64_t value);
  RecordWriter& newline() { return bytes("\n", 1); }

  // Writes what is buffered. False once any write has failed.
  bool flush();
  bool failed() const { return failed_; }

 private:
  int fd_;
  bool failed_ = false;
  std::size_t used_ = 0;
  char buffer_[4096];
};

}  // namespace ftdiag::crash
