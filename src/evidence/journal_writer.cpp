#include "evidence/journal_writer.h"

#include <unistd.h>

#include <cerrno>

#include "evidence/records_json.h"
#include "evidence/run_builder.h"

namespace ftdiag::evidence {

Fact<bool> write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return missing_from_errno(errno, "write");
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

Fact<bool> JournalWriter::append(const JournalRecord& record) {
  // Invalid UTF-8 in a command line must not lose the record: replace it.
  std::string line = record_to_json(record).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  auto written = write_all(fd_.get(), line);
  if (!written) ++failed_writes_;
  dirty_ = true;
  if (tee_) tee_->add(record);
  return written;
}

Fact<bool> JournalWriter::append_durable(const JournalRecord& record) {
  auto written = append(record);
  sync();
  return written;
}

void JournalWriter::sync() {
  if (!dirty_) return;
  ::fdatasync(fd_.get());
  dirty_ = false;
}

}  // namespace ftdiag::evidence
