// Appends records to journal.jsonl.
//
// Every record is written with one write(2) as soon as it is appended, so it
// is in the page cache and survives the death of ftdiag itself (the node OOM
// killer may choose us too). Deaths and crash records are also fdatasync'd at
// once; samples are synced in batches to keep the cost constant.
#pragma once

#include <memory>

#include "base/fact.h"
#include "base/unique_fd.h"
#include "evidence/records.h"
#include "evidence/run_file_names.h"
#include "journal/background_sync.h"
#include "journal/write_failures.h"

namespace ftdiag::evidence {
class RunBuilder;
}  // namespace ftdiag::evidence

namespace ftdiag::journal {

class JournalWriter {
 public:
  // With `failures` (shared with the run's other writers), a failed write is
  // reported there, the journal's note of it is written, and past the first
  // failure memory samples are dropped to keep the space for the records that
  // tell how the job ends (write_failures.h). Without, failures are counted.
  explicit JournalWriter(UniqueFd fd, std::shared_ptr<WriteFailures> failures = nullptr)
      : fd_(std::move(fd)), failures_(std::move(failures)) {}

  // Also hands every appended record to `builder` (not owned; null to stop),
  // so `ftdiag run` has the run's evidence when the job ends without reading
  // the journal back — the same builder `ftdiag analyze` folds it with.
  void tee_into(evidence::RunBuilder* builder) { tee_ = builder; }

  // --no-redact: records are written with the values the job had, secrets
  // included (docs/redaction.md). By default they pass the redaction step.
  void write_values_as_given() { redact_ = false; }

  // Appends one line. A failed write (disk full) is reported, never thrown:
  // the job must go on whatever happens to its record.
  Fact<bool> append(const evidence::JournalRecord& record);
  // Appends and syncs to disk before returning.
  Fact<bool> append_durable(const evidence::JournalRecord& record);
  // Syncs when something was appended since the last sync.
  void sync();

  std::uint64_t failed_writes() const { return failed_writes_; }
  int fd() const { return fd_.get(); }
  // For the background syncer: this journal's descriptor, and where its
  // failures go.
  SyncTarget sync_target() const { return {fd_.get(), kFileName, failures_}; }

  static constexpr const char* kFileName = evidence::kJournalFileName;

 private:
  Fact<bool> write_line(const evidence::JournalRecord& record);
  void write_failure_note();

  UniqueFd fd_;
  std::shared_ptr<WriteFailures> failures_;
  evidence::RunBuilder* tee_ = nullptr;
  bool dirty_ = false;
  bool redact_ = true;
  std::uint64_t failed_writes_ = 0;
};

// Writes a whole buffer, retrying on EINTR and short writes.
Fact<bool> write_all(int fd, std::string_view bytes);
// The same, returning the errno of the failed write(2), or 0.
int write_all_or_errno(int fd, std::string_view bytes);

}  // namespace ftdiag::journal
