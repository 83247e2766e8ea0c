// What ftdiag recorded survives ftdiag's own death, and `ftdiag analyze`
// reads damaged or odd input without crashing.
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

constexpr int kNobody = 65534;

int samples_after(const fs::path& run_dir, double time) {
  int count = 0;
  for (auto& record : read_journal(run_dir)) {
    if (record["type"] == "sample" && record["time"].get<double>() > time) ++count;
  }
  return count;
}

bool console_has(json& run, std::string_view text) {
  for (auto& line : run["console"]["tail"]) {
    if (line["text"].get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

// A finished run's folder, for the tests that damage its journal.
fs::path finished_run(const TempDir& tmp) {
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"lines"}))});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto folders = run_folders(tmp / "job");
  REQUIRE(folders.size() == 1);
  return folders[0];
}

bool ended_normally(const Outcome& outcome) {
  return outcome.status && WIFEXITED(*outcome.status) && WEXITSTATUS(*outcome.status) != 70;
}

}  // namespace

TEST_CASE("crash_safety: ftdiag SIGKILLed mid-run leaves a record that analyze reads") {
  TempDir tmp;
  Process ftdiag(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"hang"}))});
  auto ready = ftdiag.wait_for_line("ready pid=");
  REQUIRE_MESSAGE(ready, "no ready line; stderr: ", ftdiag.err());
  const int job_pid = pid_after(*ready, "ready pid=");
  const double ready_at = wall_now();
  // Output reaches console.log at the sampler's next tick: two ticks after the
  // line arrived here, it must be on disk.
  auto folders = run_folders(tmp / "job");
  REQUIRE(folders.size() == 1);
  REQUIRE_MESSAGE(wait_until([&] { return samples_after(folders[0], ready_at) >= 2; }),
                  "the sampler wrote no samples after the ready line");
  ftdiag.send(SIGKILL);
  // The orphaned job goes with ftdiag's process group (harness.h).
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK((WIFSIGNALED(*status) && WTERMSIG(*status) == SIGKILL));

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  CHECK(run["complete"] == false);
  CHECK(run["ended"].is_null());
  CHECK(run["job_status"].contains("missing"));
  CHECK(run["started"]["job_pid"] == job_pid);
  json* job = find_process(run, job_pid);
  REQUIRE_MESSAGE(job, "the job's process is not in the evidence");
  CHECK(job->at("death").is_null());
  CHECK(run["timeline"].size() >= 1);
  CHECK_MESSAGE(console_has(run, "ready pid="), run["console"].dump());
}

TEST_CASE("crash_safety: a journal cut mid-line, with binary garbage after it, still analyzes") {
  TempDir tmp;
  const fs::path run_dir = finished_run(tmp);
  std::string journal = read_text(run_dir / "journal.jsonl");
  REQUIRE(journal.size() > 10);
  REQUIRE(journal.back() == '\n');
  // Cut the last record (the "end") in half, as a kill in mid-write would.
  const auto last_start = journal.rfind('\n', journal.size() - 2) + 1;
  const auto last_length = journal.size() - 1 - last_start;
  std::string damaged = journal.substr(0, last_start + last_length / 2);

  std::size_t damaged_lines = 1;
  SUBCASE("cut, no newline at the end") {}
  SUBCASE("cut, then a line of binary garbage") {
    damaged_lines = 2;
    damaged += '\n';
    for (int i = 0; i < 512; ++i) damaged += i % 256 == '\n' ? '\0' : static_cast<char>(i % 256);
    damaged += '\n';
  }
  write_text(run_dir / "journal.jsonl", damaged);

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  CHECK(run["complete"] == false);
  CHECK(run["started"]["job_pid"].get<int>() > 0);
  CHECK(find_process(run, run["started"]["job_pid"].get<int>()));
  CHECK_MESSAGE(run["journal_problems"].size() >= damaged_lines, run["journal_problems"].dump());
  CHECK(console_has(run, "last line on stdout"));
}

TEST_CASE("crash_safety: analyze on a path without a record exits 3 with a message") {
  TempDir tmp;
  SUBCASE("missing path") {
    auto analysis = analyze(tmp / "nothing-here");
    CHECK_MESSAGE(analysis.outcome.exited_with(3), analysis.outcome.describe());
    CHECK(analysis.outcome.err.find("nothing-here") != std::string::npos);
  }
  SUBCASE("a directory without journals") {
    fs::create_directories(tmp / "empty" / "sub");
    auto analysis = analyze(tmp / "empty");
    CHECK_MESSAGE(analysis.outcome.exited_with(3), analysis.outcome.describe());
    CHECK(analysis.outcome.err.find("journal.jsonl") != std::string::npos);
  }
  SUBCASE("a binary file") {
    write_text(tmp / "a-file", std::string("\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0", 16));
    auto analysis = analyze(tmp / "a-file");
    CHECK_MESSAGE(analysis.outcome.exited_with(3), analysis.outcome.describe());
    CHECK_FALSE(analysis.outcome.err.empty());
  }
}

TEST_CASE("crash_safety: an unreadable journal gives a clear message, not a crash") {
  TempDir tmp;
  SUBCASE("journal.jsonl is a directory") {
    fs::create_directories(tmp / "run" / "journal.jsonl");
    auto analysis = analyze(tmp / "run");
    REQUIRE_MESSAGE(ended_normally(analysis.outcome), analysis.outcome.describe());
    // Said on stderr (exit 3/4), or as a journal problem of the run (exit 0):
    // either way it must say what is wrong with the file (EISDIR), not guess
    // at a damaged first line.
    std::string said = analysis.outcome.err;
    if (analysis.document.is_object()) {
      for (const auto& run : all_runs(analysis.document)) said += run["journal_problems"].dump();
    }
    std::transform(said.begin(), said.end(), said.begin(), [](unsigned char c) { return std::tolower(c); });
    CHECK_MESSAGE(said.find("journal.jsonl") != std::string::npos, said);
    CHECK_MESSAGE(said.find("is a directory") != std::string::npos, said);
  }
  SUBCASE("permission denied") {
    const fs::path run_dir = finished_run(tmp);
    Launch launch{{ftdiag_binary().string(), "analyze", (tmp / "job").string(), "--format", "json"}};
    if (::geteuid() == 0) {
      // Root reads anything; read as nobody instead (the folders are 0700 root).
      fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                      fs::perms::others_read | fs::perms::others_exec);
      launch.uid = kNobody;
      Launch version{{ftdiag_binary().string(), "--version"}};
      version.uid = kNobody;
      if (auto ran = run(version); !ran.exited_with(0)) {
        FTDIAG_SKIP("uid " + std::to_string(kNobody) + " cannot run " + ftdiag_binary().string() + " (" +
                    ran.describe() + ")");
      }
    } else {
      fs::permissions(run_dir / "journal.jsonl", fs::perms::none);
    }
    auto outcome = run(launch);
    REQUIRE_MESSAGE(ended_normally(outcome), outcome.describe());
    CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
    CHECK_MESSAGE(outcome.err.find("ermission denied") != std::string::npos, outcome.err);
  }
}

TEST_CASE("crash_safety: a folder whose every log is unreadable exits 4 and says why, with no verdict") {
  TempDir tmp;
  const fs::path folder = tmp / "logs";
  fs::create_directories(folder);
  write_text(folder / "train.log", "Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\nRuntimeError: boom\n");
  fs::permissions(folder / "train.log", fs::perms::none);
  // Root reads any file whatever its mode: read as nobody.
  fs::permissions(tmp.path(), fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(folder, fs::perms::owner_all | fs::perms::others_read | fs::perms::others_exec);
  Launch launch{{ftdiag_binary().string(), "analyze", folder.string()}};
  if (::geteuid() == 0) launch.uid = kNobody;
  auto outcome = run(launch);
  REQUIRE_MESSAGE(ended_normally(outcome), outcome.describe());
  CHECK_MESSAGE(outcome.exited_with(4), outcome.describe());
  CHECK_MESSAGE(outcome.err.find("train.log") != std::string::npos, outcome.err);
  CHECK_MESSAGE(outcome.err.find("ermission denied") != std::string::npos, outcome.err);
  CHECK(outcome.out.find("verdict") == std::string::npos);
}

}  // namespace ftdiag::itest
