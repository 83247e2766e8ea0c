// What happens when the record itself cannot be written: the disk is full,
// the filesystem returns EIO. The job must never notice; the record must say
// from when it is incomplete and why.
//
// One WriteFailures is shared by the writers of one run folder (journal,
// console log, background sync). The first failure, from whichever thread:
//   1. frees the reserve: space set aside at the start (kReserveBytes, by
//      fallocate) so that the journal's last records — this failure's note,
//      the deaths, the end — still land on a filesystem that filled up;
//   2. leaves a marker in the run folder: an empty file whose name carries
//      the failure (time, errno, operation, file). It costs an inode and no
//      data block, so it lands even on a filesystem that was full from the
//      start, when not one journal line can be written;
//   3. announces it once (the hook: ftdiag prints it on stderr at once).
// From then on the writers keep only what tells how the job ends: console.log
// is no longer written, and the journal drops memory samples.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "evidence/records.h"

namespace ftdiag::journal {

class WriteFailures {
 public:
  using Announce = std::function<void(std::string_view message)>;

  // Space kept for the journal's last records: a few hundred deaths and the end.
  static constexpr std::size_t kReserveBytes = 64 * 1024;
  static constexpr const char* kReserveFileName = ".reserve";

  // `run_dir_fd` (not owned; duplicated) is the run folder, where the reserve
  // and the marker go. A reserve that cannot be made (already full, or a
  // filesystem without fallocate) is not an error: see reserve().
  explicit WriteFailures(int run_dir_fd, Announce announce = {}, std::size_t reserve_bytes = kReserveBytes);
  ~WriteFailures();  // removes the reserve
  WriteFailures(const WriteFailures&) = delete;
  WriteFailures& operator=(const WriteFailures&) = delete;

  // A write or sync of `file` failed with `error` (an errno). Thread-safe.
  // Returns true for the first failure of the run (the reserve was freed
  // then, so one retry of the write may succeed); later ones are counted.
  bool report(std::string_view file, std::string_view operation, int error);

  bool failed() const { return failed_.load(std::memory_order_acquire); }
  std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }
  std::optional<evidence::WriteFailure> first() const;
  // The note that records the first failure in the journal: once, the first
  // time it is asked for after a failure.
  std::optional<evidence::SupervisorNote> take_note();
  // True when the reserve was made, else why not.
  const Fact<bool>& reserve() const { return reserve_; }

 private:
  void release_reserve();

  UniqueFd dir_fd_;
  Announce announce_;
  Fact<bool> reserve_ = false;
  std::atomic<bool> failed_ = false;
  std::atomic<std::uint64_t> count_ = 0;
  mutable std::mutex mutex_;
  std::optional<evidence::WriteFailure> first_;
  bool note_taken_ = false;
};

// "No space left on device: write to console.log failed", for notes and messages.
std::string describe(const evidence::WriteFailure& failure);

// The marker's file name and back: "write-failed,<since>,<errno>,<operation>,<file>".
inline constexpr std::string_view kWriteFailedMarkerPrefix = "write-failed,";
std::string write_failed_marker_name(const evidence::WriteFailure& failure);
std::optional<evidence::WriteFailure> parse_write_failed_marker_name(std::string_view name);

}  // namespace ftdiag::journal
