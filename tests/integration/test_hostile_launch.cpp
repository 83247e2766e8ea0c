// ftdiag started in odd ways — with standard descriptors closed, or under
// limits that make its own system calls fail — still does the right thing:
// the record stays a record, and a failure is a clear message and a
// documented exit code, never a crash, a hang or a misleading "not executable".
#include <sys/wait.h>

#include <sstream>

#include <doctest/doctest.h>

#include "integration/harness.h"
#include "skip.h"

namespace ftdiag::itest {
namespace {

constexpr int kNobody = 65534;

// Runs `ftdiag run ... -- die lines` from a shell that first applies `redirections` to itself.
Outcome run_with_redirections(const fs::path& job_dir, const std::string& redirections) {
  auto argv = ftdiag_run(job_dir, crasher_argv("die", {"lines"}));
  argv.insert(argv.begin(), {"/bin/sh", "-c", "exec \"$@\" " + redirections, "sh"});
  return run(Launch{argv});
}

// Every line of the journal is a JSON record: none is the job's output.
std::string foreign_journal_line(const fs::path& run_dir) {
  std::istringstream in(read_text(run_dir / "journal.jsonl"));
  for (std::string line; std::getline(in, line);) {
    if (json::parse(line, nullptr, /*allow_exceptions=*/false).is_discarded()) return line;
  }
  return "";
}

// `ftdiag run -- die exit 0` under `prlimit --LIMIT=VALUE`, as `uid` when set.
Outcome run_limited(const fs::path& job_dir, const std::string& limit, std::optional<uid_t> uid = std::nullopt) {
  auto argv = ftdiag_run(job_dir, crasher_argv("die", {"exit", "0"}));
  argv.insert(argv.begin(), {"/usr/bin/prlimit", "--" + limit, "--"});
  Launch launch{argv};
  launch.uid = uid;
  // LeakSanitizer checks at exit from a thread of its own, which the limit
  // on processes forbids: its own failure would hide ftdiag's exit code.
  launch.env["ASAN_OPTIONS"] = "detect_leaks=0";
  return run(launch, 10);
}

// A failure of ftdiag's own: exit 125 and one clear line naming the failed call and its reason.
bool is_clear_own_failure(const Outcome& outcome, std::string_view reason) {
  return outcome.exited_with(125) && outcome.err.rfind("ftdiag: cannot ", 0) == 0 &&
         outcome.err.find(reason) != std::string::npos;
}

}  // namespace

// Guards against the journal taking descriptor 1 (or 2) when ftdiag started
// with it closed, and the job's output being written into the journal.
TEST_CASE("hostile launch: with stdin, stdout or stderr closed, the journal stays a journal and the console log gets the output") {
  for (const char* redirections : {">&-", "2>&-", ">&- 2>&-", "<&- >&- 2>&-"}) {
    CAPTURE(redirections);
    TempDir tmp;
    auto outcome = run_with_redirections(tmp / "job", redirections);
    CHECK_MESSAGE(outcome.exited_with(0), outcome.describe());
    auto folders = run_folders(tmp / "job");
    REQUIRE(folders.size() == 1);
    CHECK_MESSAGE(foreign_journal_line(folders[0]).empty(), "journal line: ", foreign_journal_line(folders[0]));
    const std::string console = read_text(folders[0] / "console.log");
    CHECK_MESSAGE(console.find("o first line on stdout") != std::string::npos, console);
    CHECK_MESSAGE(console.find("e second line on stderr") != std::string::npos, console);
    auto analysis = analyze(tmp / "job");
    CHECK(only_run(analysis.document)["job_status"]["exit_code"] == 0);
  }
}

// Guards against unchecked descriptor-creating calls (signalfd, timerfd,
// epoll, pipes) and a pipe2 failure reported as "not executable" (126).
TEST_CASE("hostile launch: under every small RLIMIT_NOFILE, ftdiag runs the job or says which call failed (exit 125)") {
#ifdef FTDIAG_SANITIZED
  // UBSan's vptr check probes memory through a pipe of its own: with no
  // descriptor left it reports every virtual call as invalid.
  FTDIAG_SKIP("a sanitized ftdiag cannot run without descriptors for the sanitizer runtime");
#endif
  bool saw_pipe_failure = false;
  int ran = 0;
  for (int files = 4; files <= 40; ++files) {
    CAPTURE(files);
    TempDir tmp;
    auto outcome = run_limited(tmp / "job", "nofile=" + std::to_string(files));
    if (outcome.exited_with(0)) {
      ++ran;
      continue;
    }
    CHECK_MESSAGE(is_clear_own_failure(outcome, "Too many open files"), outcome.describe());
    saw_pipe_failure |= outcome.err.find("pipe2: Too many open files") != std::string::npos;
  }
  CHECK_MESSAGE(saw_pipe_failure, "no limit made a pipe fail");
  CHECK_MESSAGE(ran > 0, "no limit up to 40 files let the job run");
}

// Guards against a fork failure reported as "not executable" (126) and a
// failure to start the journal's sync thread ending ftdiag (exit 70) while
// its job ran on.
TEST_CASE("hostile launch: under every small RLIMIT_NPROC, ftdiag runs the job or says that fork failed (exit 125)") {
  TempDir tmp;
  fs::permissions(tmp.path(), fs::perms::all);
  Launch version{{ftdiag_binary().string(), "--version"}};
  version.uid = kNobody;
  if (auto outcome = run(version); !outcome.exited_with(0)) {
    FTDIAG_SKIP("uid " + std::to_string(kNobody) + " cannot run " + ftdiag_binary().string() + " (" +
                outcome.describe() + ")");
  }
  bool saw_fork_failure = false;
  int ran = 0;
  // The limit counts every process and thread of the uid: ftdiag, its two
  // output relays, the job, the journal's sync thread, and the uid's others.
  for (int processes = 1; processes <= 8; ++processes) {
    CAPTURE(processes);
    auto outcome = run_limited(tmp / ("job" + std::to_string(processes)), "nproc=" + std::to_string(processes), kNobody);
    if (outcome.exited_with(0)) {
      ++ran;
      continue;
    }
    CHECK_MESSAGE(is_clear_own_failure(outcome, "fork: Resource temporarily unavailable"), outcome.describe());
    saw_fork_failure = true;
  }
  CHECK(saw_fork_failure);
  CHECK_MESSAGE(ran > 0, "no limit up to 8 processes let the job run");
}

}  // namespace ftdiag::itest
