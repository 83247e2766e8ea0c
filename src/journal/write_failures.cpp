#include "journal/write_failures.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/clock.h"

namespace ftdiag::journal {

using evidence::WriteFailure;
using evidence::SupervisorNote;

namespace {

// fallocate(2) mode 0 allocates the blocks; a filesystem without it
// (EOPNOTSUPP) simply has no reserve.
Fact<bool> make_reserve(int dir_fd, std::size_t bytes) {
  if (bytes == 0) return Missing{MissingReason::not_present, "no reserve asked for"};
  int fd = ::openat(dir_fd, WriteFailures::kReserveFileName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return missing_from_errno(errno, "create the journal's reserve");
  const int result = ::fallocate(fd, 0, 0, static_cast<off_t>(bytes));
  const int error = errno;
  ::close(fd);
  if (result == 0) return true;
  ::unlinkat(dir_fd, WriteFailures::kReserveFileName, 0);
  return missing_from_errno(error, "fallocate the journal's reserve");
}

std::vector<std::string_view> split(std::string_view text, char separator, std::size_t max_parts) {
  std::vector<std::string_view> parts;
  while (parts.size() + 1 < max_parts) {
    const auto at = text.find(separator);
    if (at == std::string_view::npos) break;
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + 1);
  }
  parts.push_back(text);  // the last part keeps any separators (a file name may have them)
  return parts;
}

template <class Number>
bool parse_number(std::string_view text, Number& out) {
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

WriteFailures::WriteFailures(int run_dir_fd, Announce announce, std::size_t reserve_bytes)
    : dir_fd_(::fcntl(run_dir_fd, F_DUPFD_CLOEXEC, 3)), announce_(std::move(announce)) {
  reserve_ = dir_fd_.valid() ? make_reserve(dir_fd_.get(), reserve_bytes)
                             : missing_from_errno(errno, "duplicate the run folder's descriptor");
}

WriteFailures::~WriteFailures() { release_reserve(); }

void WriteFailures::release_reserve() {
  if (!reserve_.has_value()) return;
  // Truncating frees the blocks at once, even if something held the file open.
  if (int fd = ::openat(dir_fd_.get(), kReserveFileName, O_WRONLY | O_NOFOLLOW | O_CLOEXEC); fd >= 0) {
    [[maybe_unused]] int ignored = ::ftruncate(fd, 0);
    ::close(fd);
  }
  ::unlinkat(dir_fd_.get(), kReserveFileName, 0);
  reserve_ = Missing{MissingReason::not_present, "the reserve was used"};
}

bool WriteFailures::report(std::string_view file, std::string_view operation, int error) {
  count_.fetch_add(1, std::memory_order_relaxed);
  WriteFailure failure;
  {
    std::lock_guard lock(mutex_);
    if (first_) return false;
    failure = WriteFailure{wall_clock_now(), std::string(file), std::string(operation), error, std::strerror(error)};
    first_ = failure;
    release_reserve();
    if (dir_fd_.valid()) {
      const auto marker = write_failed_marker_name(failure);
      int fd = ::openat(dir_fd_.get(), marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0) ::close(fd);
    }
  }
  failed_.store(true, std::memory_order_release);
  if (announce_) {
    announce_(fmt::format("cannot write the record of this job ({}); the job goes on, but its record is incomplete from now on",
                          describe(failure)));
  }
  return true;
}

std::optional<WriteFailure> WriteFailures::first() const {
  std::lock_guard lock(mutex_);
  return first_;
}

std::optional<SupervisorNote> WriteFailures::take_note() {
  std::lock_guard lock(mutex_);
  if (!first_ || note_taken_) return std::nullopt;
  note_taken_ = true;
  return SupervisorNote{wall_clock_now(), "the record is incomplete: " + describe(*first_), first_};
}

std::string describe(const WriteFailure& failure) {
  return fmt::format("{}: {} to {} failed", failure.error, failure.operation, failure.file);
}

std::string write_failed_marker_name(const WriteFailure& failure) {
  return fmt::format("{}{:.6f},{},{},{}", kWriteFailedMarkerPrefix, failure.since, failure.error_number,
                     failure.operation, failure.file);
}

std::optional<WriteFailure> parse_write_failed_marker_name(std::string_view name) {
  if (!name.starts_with(kWriteFailedMarkerPrefix)) return std::nullopt;
  name.remove_prefix(kWriteFailedMarkerPrefix.size());
  const auto parts = split(name, ',', 4);
  if (parts.size() != 4) return std::nullopt;
  WriteFailure failure;
  if (!parse_number(parts[0], failure.since) || !parse_number(parts[1], failure.error_number)) return std::nullopt;
  failure.operation = std::string(parts[2]);
  failure.file = std::string(parts[3]);
  failure.error = std::strerror(failure.error_number);
  return failure;
}

}  // namespace ftdiag::journal
