// A full disk must cost only the record, never the job, and the record must
// say from when it is incomplete and why (guards against console.log
// silently stopping mid-line and an empty journal read as "ftdiag was killed").
#include <doctest/doctest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>

#include "evidence/run_builder.h"
#include "journal/console_log.h"
#include "journal/job_directory.h"
#include "journal/job_reader.h"
#include "journal/journal_writer.h"
#include "journal/write_failures.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using namespace ftdiag::journal;

namespace {

namespace fs = std::filesystem;

struct RunFolder {
  fs::path path;
  UniqueFd fd;
  RunFolder() {
    path = fs::temp_directory_path() / ("ftdiag-wf-" + std::to_string(::getpid()));
    fs::remove_all(path);
    fs::create_directories(path);
    fd = UniqueFd(::open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  }
  ~RunFolder() { fs::remove_all(path); }
  std::vector<std::string> markers() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path)) {
      if (e.path().filename().string().starts_with(kWriteFailedMarkerPrefix)) names.push_back(e.path().filename());
    }
    return names;
  }
};

// /dev/full: every write fails with ENOSPC, as on a full filesystem.
UniqueFd full_disk() { return UniqueFd(::open("/dev/full", O_WRONLY | O_CLOEXEC)); }

}  // namespace

TEST_CASE("the write-failed marker's name carries the failure and reads back") {
  const WriteFailure f{1764405600.123456, "console.log", "write", ENOSPC, ""};
  const auto name = write_failed_marker_name(f);
  CHECK(name == "write-failed,1764405600.123456,28,write,console.log");
  auto back = parse_write_failed_marker_name(name);
  REQUIRE(back);
  CHECK(back->since == doctest::Approx(f.since));
  CHECK(back->error_number == ENOSPC);
  CHECK(back->operation == "write");
  CHECK(back->file == "console.log");
  CHECK(back->error == "No space left on device");
  for (std::string_view bad : {"journal.jsonl", "write-failed,", "write-failed,x,28,write,a", "write-failed,1,y,write,a",
                               "write-failed,1,28,write"}) {
    CHECK_FALSE(parse_write_failed_marker_name(bad));
  }
}

TEST_CASE("WriteFailures: a reserve at the start, freed at the first failure, which is announced once") {
  RunFolder dir;
  std::vector<std::string> announced;
  {
    WriteFailures failures(dir.fd.get(), [&](std::string_view m) { announced.emplace_back(m); }, 64 * 1024);
    REQUIRE(failures.reserve() == Fact<bool>(true));
    struct stat st {};
    REQUIRE(::stat((dir.path / WriteFailures::kReserveFileName).c_str(), &st) == 0);
    CHECK(st.st_blocks * 512 >= 64 * 1024);  // allocated, not just sized
    CHECK_FALSE(failures.failed());
    CHECK_FALSE(failures.take_note());

    CHECK(failures.report("console.log", "write", ENOSPC));
    CHECK_FALSE(failures.report("journal.jsonl", "fdatasync", EIO));
    CHECK(failures.failed());
    CHECK(failures.count() == 2);
    CHECK_FALSE(fs::exists(dir.path / WriteFailures::kReserveFileName));
    REQUIRE(announced.size() == 1);
    CHECK(announced[0].find("No space left on device: write to console.log failed") != std::string::npos);
    CHECK(announced[0].find("the job goes on") != std::string::npos);
    REQUIRE(dir.markers().size() == 1);
    auto marker = parse_write_failed_marker_name(dir.markers()[0]);
    REQUIRE(marker);
    CHECK(marker->file == "console.log");

    auto note = failures.take_note();
    REQUIRE(note);
    REQUIRE(note->write_failure);
    CHECK(note->write_failure->error_number == ENOSPC);
    CHECK(note->write_failure->since == doctest::Approx(marker->since).epsilon(1e-12));
    CHECK_FALSE(failures.take_note());  // once
  }
  CHECK_FALSE(fs::exists(dir.path / WriteFailures::kReserveFileName));
}

TEST_CASE("WriteFailures: no reserve is no error, and the end removes it") {
  RunFolder dir;
  { WriteFailures failures(dir.fd.get(), {}, 0); CHECK_FALSE(failures.reserve()); }
  { WriteFailures failures(dir.fd.get(), {}); CHECK(failures.reserve() == Fact<bool>(true)); }
  CHECK_FALSE(fs::exists(dir.path / WriteFailures::kReserveFileName));
}

TEST_CASE("JournalWriter on a full disk: reports, notes the failure in the live evidence, drops samples") {
  RunFolder dir;
  auto failures = std::make_shared<WriteFailures>(dir.fd.get());
  JournalWriter journal(full_disk(), failures);
  RunBuilder live;
  journal.tee_into(&live);
  RunStarted start;
  start.job_pid = 10;
  CHECK_FALSE(journal.append(start));
  CHECK(failures->failed());
  CHECK(live.has_write_failure());
  CHECK_FALSE(journal.append(MemorySample{}));
  journal.append(ProcessDied{2, 10, ExitStatus::exited(0), {"waitpid"}});
  journal.append(RunEnded{3, ExitStatus::exited(0)});
  journal.tee_into(nullptr);
  RunEvidence run = std::move(live).finish("x");
  CHECK(run.timeline.empty());  // the sample was dropped from the live record as from the journal
  REQUIRE(run.ended);
  REQUIRE(run.notes.size() == 1);
  REQUIRE(run.notes[0].write_failure);
  CHECK(run.notes[0].write_failure->file == "journal.jsonl");
  CHECK(run.notes[0].write_failure->error_number == ENOSPC);
}

TEST_CASE("JournalWriter: the reserve lets the records after the first failure land") {
  RunFolder dir;
  auto failures = std::make_shared<WriteFailures>(dir.fd.get());
  JournalWriter journal(UniqueFd(::open((dir.path / "journal.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600)), failures);
  failures->report("console.log", "write", ENOSPC);  // the console filled the disk
  journal.append(MemorySample{});
  journal.append(RunEnded{3, ExitStatus::exited(0)});
  std::ifstream in(dir.path / "journal.jsonl");
  std::string first, second, third;
  std::getline(in, first);
  std::getline(in, second);
  CHECK(first.find("\"write_failure\"") != std::string::npos);
  CHECK(second.find("\"type\":\"end\"") != std::string::npos);
  CHECK_FALSE(std::getline(in, third));  // no sample
}

TEST_CASE("ConsoleLogWriter on a full disk: reports once and stops writing") {
  RunFolder dir;
  auto failures = std::make_shared<WriteFailures>(dir.fd.get());
  ConsoleLogWriter console(full_disk(), failures);
  console.feed(ConsoleStream::out, "step 1\n", 1.0);
  console.flush();
  CHECK(failures->failed());
  CHECK(failures->count() == 1);
  console.feed(ConsoleStream::out, "step 2\n", 2.0);
  console.flush();
  CHECK(failures->count() == 1);  // not written again: the space left is the journal's
  CHECK(console.lines_written() == 2);
  CHECK(failures->first()->file == "console.log");
}

TEST_CASE("a run folder whose journal is empty but holds the marker reads as incomplete, from when and why") {
  RunFolder dir;
  { std::ofstream(dir.path / kJournalFileName); }
  { std::ofstream(dir.path / kConsoleFileName); }
  { std::ofstream(dir.path / write_failed_marker_name(WriteFailure{1764405600.5, "journal.jsonl", "write", ENOSPC, ""})); }
  auto run = read_run_directory(dir.path);
  REQUIRE(run);
  REQUIRE(run->notes.size() == 1);
  REQUIRE(run->notes[0].write_failure);
  CHECK(run->notes[0].write_failure->since == doctest::Approx(1764405600.5));
  CHECK(run->notes[0].write_failure->error == "No space left on device");
  // Its console.log is not the job's last words: not to be read as whole.
  REQUIRE_FALSE(run->console.readable);
  CHECK(run->console.readable.missing().detail.find("console.log is incomplete") == 0);
  REQUIRE_FALSE(run->job_status);
  CHECK(run->job_status.missing().detail.find("writing it failed") != std::string::npos);
  bool said = false;
  for (const auto& problem : run->journal_problems) said |= problem.find("writing the journal failed from the start") != std::string::npos;
  CHECK(said);
}
