#include "crash/record_writer.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ftdiag::crash {

namespace {

// write(2) until all of it is out; EINTR is retried, anything else is final.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Digits of value in `base`, most significant first, into out (at least 20
// bytes, enough for 2^64 in decimal); returns how many.
std::size_t format_unsigned(std::uint64_t value, unsigned base, char* out) {
  char reversed[20];
  std::size_t count = 0;
  do {
    reversed[count++] = "0123456789abcdef"[value % base];
    value /= base;
  } while (value != 0);
  for (std::size_t i = 0; i < count; ++i) out[i] = reversed[count - 1 - i];
  return count;
}

}  // namespace

RecordWriter& RecordWriter::bytes(const char* data, std::size_t size) {
  while (size > 0 && !failed_) {
    if (used_ == sizeof buffer_ && !flush()) break;
    std::size_t room = sizeof buffer_ - used_;
    std::size_t chunk = size < room ? size : room;
    std::memcpy(buffer_ + used_, data, chunk);  // async-signal-safe since POSIX.1-2008 TC2
    used_ += chunk;
    data += chunk;
    size -= chunk;
  }
  return *this;
}

RecordWriter& RecordWriter::text(const char* nul_terminated) {
  std::size_t size = 0;
  while (nul_terminated[size] != '\0') ++size;
  return bytes(nul_terminated, size);
}

RecordWriter& RecordWriter::dec(std::uint64_t value) {
  char digits[20];
  return bytes(digits, format_unsigned(value, 10, digits));
}

RecordWriter& RecordWriter::dec_signed(std::int64_t value) {
  if (value >= 0) return dec(static_cast<std::uint64_t>(value));
  bytes("-", 1);
  // Negate in unsigned arithmetic: -INT64_MIN does not fit an int64_t.
  return dec(0 - static_cast<std::uint64_t>(value));
}

RecordWriter& RecordWriter::dec_padded(std::uint64_t value, int width) {
  char digits[20];
  std::size_t count = format_unsigned(value, 10, digits);
  for (int pad = width - static_cast<int>(count); pad > 0; --pad) bytes("0", 1);
  return bytes(digits, count);
}

RecordWriter& RecordWriter::hex(std::uint64_t value) {
  char digits[20];
  bytes("0x", 2);
  return bytes(digits, format_unsigned(value, 16, digits));
}

bool RecordWriter::flush() {
  if (failed_) return false;
  if (used_ > 0 && !write_all(fd_, buffer_, used_)) failed_ = true;
  used_ = 0;
  return !failed_;
}

}  // namespace ftdiag::crash
