// Reads the kernel's log from /dev/kmsg, one record per read. Live (`ftdiag
// run`): the records written since the reader opened, as they come (the
// device is pollable), so an OOM kill or a segfault of the job is recorded
// with the run even when the ring buffer wraps or the node reboots before
// anyone runs dmesg. Post-mortem: every record the ring buffer still holds.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "base/unique_fd.h"

namespace ftdiag::collect {

class KernelLogReader {
 public:
  enum class From { now, oldest };
  // From::now: positioned after the last record, only what is logged from
  // now on; From::oldest: from the oldest record still held. Missing with the reason when the log cannot be read (no /dev/kmsg in a
  // container, kernel.dmesg_restrict=1 without CAP_SYSLOG).
  static Fact<KernelLogReader> open(const std::filesystem::path& device = "/dev/kmsg", From from = From::now);

  int fd() const { return fd_.get(); }

  // Calls sink(record) for every kernel record available now, oldest first
  // ("prio,seq,usec,flags;message" with its continuation lines). Records
  // written by userspace (facility other than the kernel's) are skipped.
  // Returns how many records were overwritten before they could be read
  // since the last call (a gap in sequence numbers).
  template <class Sink>
  std::uint64_t drain(Sink&& sink) {
    std::uint64_t lost = 0;
    while (auto record = next(lost)) {
      if (!record->empty()) sink(std::string_view(*record));
    }
    return lost;
  }

 private:
  explicit KernelLogReader(UniqueFd fd) : fd_(std::move(fd)) {}
  // The next record (empty when it is not the kernel's), or nullopt when
  // none is available now.
  std::optional<std::string> next(std::uint64_t& lost);

  UniqueFd fd_;
  std::optional<std::uint64_t> last_sequence_;
};

}  // namespace ftdiag::collect
