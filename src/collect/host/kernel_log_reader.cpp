#include "collect/host/kernel_log_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>

namespace ftdiag::collect {

namespace {

// A /dev/kmsg read returns one whole record; the kernel limits a record to
// 1 KiB of text plus its prefix and dictionary (LOG_LINE_MAX), 8 KiB is ample.
constexpr std::size_t kRecordBuffer = 8192;

struct Prefix {
  int priority = 0;
  std::uint64_t sequence = 0;
};

std::optional<Prefix> read_prefix(std::string_view record) {
  Prefix prefix;
  const char* end = record.data() + record.size();
  auto [p, ec] = std::from_chars(record.data(), end, prefix.priority);
  if (ec != std::errc{} || p == end || *p != ',') return std::nullopt;
  auto [q, ec2] = std::from_chars(p + 1, end, prefix.sequence);
  if (ec2 != std::errc{} || q == end || *q != ',') return std::nullopt;
  return prefix;
}

}  // namespace

Fact<KernelLogReader> KernelLogReader::open(const std::filesystem::path& device, From from) {
  UniqueFd fd(::open(device.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
  if (!fd.valid()) {
    const int error = errno;
    if (error == EPERM || error == EACCES) {
      return Missing{MissingReason::permission_denied,
                     "reading " + device.string() + " needs CAP_SYSLOG when kernel.dmesg_restrict=1"};
    }
    return missing_from_errno(error, "open " + device.string());
  }
  if (from == From::now && ::lseek(fd.get(), 0, SEEK_END) < 0) {
    return missing_from_errno(errno, "seek to the end of " + device.string());
  }
  return KernelLogReader(std::move(fd));
}

std::optional<std::string> KernelLogReader::next(std::uint64_t& lost) {
  char buffer[kRecordBuffer];
  for (;;) {
    const ssize_t n = ::read(fd_.get(), buffer, sizeof buffer);
    if (n > 0) {
      std::string record(buffer, static_cast<std::size_t>(n));
      while (!record.empty() && record.back() == '\n') record.pop_back();
      const auto prefix = read_prefix(record);
      if (!prefix) return std::string();
      if (last_sequence_ && prefix->sequence > *last_sequence_ + 1) lost += prefix->sequence - *last_sequence_ - 1;
      last_sequence_ = prefix->sequence;
      if (prefix->priority >> 3 != 0) return std::string();  // written by userspace, not the kernel
      return record;
    }
    if (n < 0 && errno == EINTR) continue;
    // EPIPE: records were overwritten before this read; the next read
    // continues with the oldest one left, whose sequence number tells how
    // many were lost.
    if (n < 0 && errno == EPIPE) continue;
    return std::nullopt;  // EAGAIN: nothing more now; any other error ends this drain
  }
}

}  // namespace ftdiag::collect
