#include "journal/job_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "evidence/console_summary.h"
#include "evidence/quoted_line.h"
#include "evidence/run_builder.h"
#include "journal/console_log.h"
#include "journal/crash_files.h"
#include "journal/job_directory.h"
#include "journal/journal_reader.h"
#include "journal/write_failures.h"

namespace ftdiag::journal {

using evidence::JournalRecord;
using evidence::WriteFailure;
using evidence::SupervisorNote;
using evidence::RunBuilder;
using evidence::RunEvidence;
using evidence::ConsoleSummary;
using evidence::ConsoleEvidence;
using evidence::PhaseTable;
using evidence::BoundedLineCutter;
using evidence::parse_console_line;
using evidence::kJournalFileName;
using evidence::kConsoleFileName;

namespace fs = std::filesystem;

Fact<bool> check_regular_file(const fs::path& file) {
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer.
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return missing_from_errno(errno, "open " + file.string());
  struct stat st {};
  const bool stat_ok = ::fstat(fd, &st) == 0;
  ::close(fd);
  if (stat_ok && S_ISDIR(st.st_mode)) return Missing{MissingReason::unparseable, file.string() + " is a directory, not a file"};
  if (!stat_ok || !S_ISREG(st.st_mode)) return Missing{MissingReason::unparseable, file.string() + " is not a regular file"};
  return true;
}

namespace {

constexpr std::size_t kConsoleReadBytes = std::size_t{1} << 20;

// Hands each record to the run builder and each damaged line to its problems.
class BuilderSink final : public JournalSink {
 public:
  BuilderSink(const fs::path& journal, RunBuilder& builder) : journal_(journal.string()), builder_(builder) {}
  void on_record(JournalRecord&& record) override { builder_.add(record); }
  void on_problem(std::uint64_t line_number, std::string reason) override {
    builder_.add_problem(fmt::format("{}:{}: {}", journal_, line_number, reason));
  }

 private:
  std::string journal_;
  RunBuilder& builder_;
};

ConsoleEvidence read_console(const fs::path& file, const PhaseTable* phases, const parse::LineEventTable* events) {
  if (auto readable = check_regular_file(file); !readable) {
    ConsoleEvidence console;
    console.readable = readable.missing();
    return console;
  }
  ConsoleSummary summary(phases, events);
  std::ifstream in(file, std::ios::binary);
  // ftdiag writes no line longer than kMaxLineBytes; a longer one (a console
  // not written by ftdiag, or damage) keeps its head and tail, so memory
  // stays bounded whatever the file holds.
  BoundedLineCutter cutter(ConsoleLogWriter::kMaxLineBytes + 64);
  auto add = [&](std::string_view line) {
    auto parsed = parse_console_line(line);
    if (!parsed) {
      summary.count_unparsed();
      return;
    }
    summary.add(parsed->time, parsed->stream, parsed->text);
  };
  std::unique_ptr<char[]> buffer(new char[kConsoleReadBytes]);
  while (in.read(buffer.get(), kConsoleReadBytes) || in.gcount() > 0) {
    cutter.feed(std::string_view(buffer.get(), static_cast<std::size_t>(in.gcount())), add);
  }
  cutter.finish(add);
  return std::move(summary).finish();
}

// A failure to write the record that left no note in the journal (the disk
// was full from the start) is still told by the marker beside it.
void add_write_failure_marker(const fs::path& run_dir, RunBuilder& builder) {
  if (builder.has_write_failure()) return;
  std::error_code ec;
  std::optional<WriteFailure> first;
  for (const auto& entry : fs::directory_iterator(run_dir, ec)) {
    auto failure = parse_write_failed_marker_name(entry.path().filename().string());
    if (failure && (!first || failure->since < first->since)) first = failure;
  }
  if (first) builder.add(SupervisorNote{first->since, "the record is incomplete: " + describe(*first), first});
}

// console.log is not written past the first failed write of the record
// (write_failures.h): its last lines are not the job's last words, so what
// is read from it (the phase at death) must not be taken as whole.
void mark_console_incomplete(RunEvidence& run) {
  for (const auto& note : run.notes) {
    if (!note.write_failure || !run.console.readable) continue;
    run.console.readable = Missing{MissingReason::failed, "console.log is incomplete: " + describe(*note.write_failure)};
  }
}

}  // namespace

Fact<RunEvidence> read_run_directory(const fs::path& run_dir, const PhaseTable* phases, const parse::LineEventTable* events) {
  const fs::path journal = run_dir / kJournalFileName;
  if (auto readable = check_regular_file(journal); !readable) return readable.missing();
  RunBuilder builder;
  BuilderSink sink(journal, builder);
  // A read that fails midway keeps what came before it, and says so.
  if (auto read = read_journal(journal, sink); !read) builder.add_problem(read.missing().detail);
  add_write_failure_marker(run_dir, builder);
  if (!builder.has_start()) {
    builder.add_problem(journal.string() + (builder.has_write_failure()
                                                ? ": no \"run\" record: writing the journal failed from the start"
                                                : ": no \"run\" record: the journal's first line is missing or damaged"));
  }
  RunEvidence run = std::move(builder).finish(run_dir.filename().string());
  run.console = read_console(run_dir / kConsoleFileName, phases, events);
  mark_console_incomplete(run);
  run.crashes = read_crash_files(run_dir);
  return run;
}

bool is_job_directory(const fs::path& path) {
  std::error_code ec;
  if (fs::exists(path / kJournalFileName, ec)) return true;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (fs::exists(entry.path() / kJournalFileName, ec)) return true;
  }
  return false;
}

}  // namespace ftdiag::journal
