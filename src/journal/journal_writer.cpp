#include "journal/journal_writer.h"

#include <unistd.h>

#include <cerrno>

#include "evidence/records_json.h"
#include "evidence/redact_json.h"
#include "evidence/run_builder.h"

namespace ftdiag::journal {

using evidence::JournalRecord;
using evidence::redact_json;
using evidence::record_from_json;
using evidence::record_to_json;
using evidence::MemorySample;

int write_all_or_errno(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return 0;
}

Fact<bool> write_all(int fd, std::string_view bytes) {
  if (const int error = write_all_or_errno(fd, bytes); error != 0) return missing_from_errno(error, "write");
  return true;
}

Fact<bool> JournalWriter::write_line(const JournalRecord& record) {
  // Secrets in argv, the environment and quoted lines never reach the file.
  nlohmann::json json = record_to_json(record);
  const bool redacted = redact_ && redact_json(json);
  // Invalid UTF-8 in a command line must not lose the record: replace it.
  std::string line = json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  int error = write_all_or_errno(fd_.get(), line);
  dirty_ = true;
  // The first failure frees the reserve: the line may fit now. A short write
  // before the failure leaves part of a line, which readers skip as damaged.
  if (error != 0 && failures_ && failures_->report(kFileName, "write", error)) {
    error = write_all_or_errno(fd_.get(), line);
  }
  if (tee_) {
    // The live evidence folds the record as written, so the summary and
    // verdict at the end of a run print no secret the journal does not hold.
    // Our own JSON always reads back; were it not to, the record is kept.
    auto as_written = redacted ? record_from_json(json) : Fact<JournalRecord>(Missing{});
    if (as_written) {
      tee_->add(as_written.value());
    } else {
      tee_->add(record);
    }
  }
  if (error == 0) return true;
  ++failed_writes_;
  return missing_from_errno(error, "write " + std::string(kFileName));
}

void JournalWriter::write_failure_note() {
  if (auto note = failures_->take_note()) {
    JournalRecord record = std::move(*note);
    write_line(record);
  }
}

Fact<bool> JournalWriter::append(const JournalRecord& record) {
  if (failures_ && failures_->failed()) {
    write_failure_note();
    // Samples are the bulk of a journal; past a failure the space left (the
    // reserve) is kept for the deaths and the end. Dropped from the live
    // evidence too, so `ftdiag run` and `ftdiag analyze` agree.
    if (std::holds_alternative<MemorySample>(record)) return Missing{MissingReason::failed, "dropped: the record is incomplete"};
  }
  auto written = write_line(record);
  if (failures_ && failures_->failed()) write_failure_note();
  return written;
}

Fact<bool> JournalWriter::append_durable(const JournalRecord& record) {
  auto written = append(record);
  sync();
  return written;
}

void JournalWriter::sync() {
  if (!dirty_) return;
  if (::fdatasync(fd_.get()) != 0 && failures_) failures_->report(kFileName, "fdatasync", errno);
  dirty_ = false;
}

}  // namespace ftdiag::journal
