// Signals sent to ftdiag reach the job: a training job's SIGTERM handler
// (checkpoint, then exit) must run as if ftdiag were not there.
#include <signal.h>
#include <sys/wait.h>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

bool has_note(json& run, std::string_view text) {
  for (auto& note : run["notes"]) {
    if (note["what"].get<std::string>().find(text) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

TEST_CASE("signals: SIGTERM to ftdiag reaches a job that handles it, and its clean exit is mirrored") {
  TempDir tmp;
  Fifo ready(tmp / "ready");
  Process ftdiag(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"hang", ready.path().string()}))});
  // The job writes the FIFO only once its handlers are installed.
  auto line = ready.read_line();
  REQUIRE_MESSAGE(line == std::optional<std::string>("ready"), "no ready handshake; stderr: ", ftdiag.err());
  ftdiag.send(SIGTERM);
  auto status = ftdiag.finish();
  REQUIRE_MESSAGE(status, "ftdiag did not end after SIGTERM");
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status), " ", ftdiag.err());
  CHECK(ftdiag.out().find("got SIGTERM\n") != std::string::npos);

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(run["complete"] == true);
  CHECK(run["job_status"]["exit_code"] == 0);
  CHECK_MESSAGE(has_note(run, "forwarded SIGTERM"), run["notes"].dump());
}

TEST_CASE("signals: SIGUSR1 and SIGINT sent to ftdiag reach the job; ftdiag survives SIGUSR1") {
  TempDir tmp;
  Process ftdiag(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"hang"}))});
  REQUIRE_MESSAGE(ftdiag.wait_for_line("ready pid="), "no ready line; stderr: ", ftdiag.err());
  ftdiag.send(SIGUSR1);
  CHECK_MESSAGE(ftdiag.wait_for_line("got SIGUSR1"), "the job never saw SIGUSR1: ", ftdiag.out());
  ftdiag.send(SIGUSR2);
  CHECK_MESSAGE(ftdiag.wait_for_line("got SIGUSR2"), "the job never saw SIGUSR2: ", ftdiag.out());
  // A kill(2) SIGINT (not a terminal's ^C, which the job gets by itself) is forwarded.
  ftdiag.send(SIGINT);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFEXITED(*status) && WEXITSTATUS(*status) == 0), describe_status(status));
  CHECK(ftdiag.out().find("got SIGINT\n") != std::string::npos);

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(has_note(run, "forwarded SIGUSR1"));
  CHECK(has_note(run, "forwarded SIGINT"));
}

TEST_CASE("signals: SIGTERM to ftdiag kills a job without a handler; ftdiag records it, then dies by SIGTERM") {
  TempDir tmp;
  Fifo never(tmp / "never");
  // `await` blocks opening the FIFO with SIGTERM at its default action.
  Process ftdiag(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"await", never.path().string(), "exit", "0"}))});
  REQUIRE(ftdiag.wait_for_line("waiting pid="));
  ftdiag.send(SIGTERM);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM), describe_status(status));

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(run["complete"] == true);
  CHECK(run["job_status"]["signal"] == SIGTERM);
}

}  // namespace ftdiag::itest
