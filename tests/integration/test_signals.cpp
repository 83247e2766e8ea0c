// Signals sent to ftdiag reach the job: a training job's SIGTERM handler
// (checkpoint, then exit) must run as if ftdiag were not there.
#include <signal.h>
#include <sys/wait.h>

#include <fstream>
#include <sstream>

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

// Whether `signal` is in the SigIgn mask of /proc/PID/status.
bool ignores(int pid, int signal) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("SigIgn:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> (signal - 1)) & 1;
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

TEST_CASE("signals: SIGUSR1 and SIGINT sent to ftdiag reach the job, ftdiag survives SIGUSR1") {
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

TEST_CASE("signals: SIGTERM to ftdiag kills a job without a handler, ftdiag records it, then dies by SIGTERM") {
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

namespace ftdiag::itest {

// Guards against the child resetting inherited SIG_IGN dispositions and
// ftdiag forwarding a signal it was told to ignore: `nohup ftdiag run -- job`
// plus a hangup killed the job, while `nohup job` survives.
TEST_CASE("signals: under nohup, SIGHUP stays ignored for the job and is not forwarded") {
  TempDir tmp;
  Fifo never(tmp / "never");
  auto argv = ftdiag_run(tmp / "job", crasher_argv("die", {"await", never.path().string(), "exit", "0"}));
  argv.insert(argv.begin(), "/usr/bin/nohup");
  Process ftdiag(Launch{argv});
  auto line = ftdiag.wait_for_line("waiting pid=");
  REQUIRE_MESSAGE(line, "no waiting line; stderr: ", ftdiag.err());
  const int job = pid_after(*line, "pid=");
  REQUIRE(job > 0);
  CHECK_MESSAGE(ignores(job, SIGHUP), "the job does not ignore SIGHUP");
  CHECK_FALSE(ignores(job, SIGTERM));
  ::kill(job, SIGHUP);  // a hangup of the whole session reaches the job too
  ftdiag.send(SIGHUP);
  // Forwarded, and fatal to the job: its death says which signal got there.
  ftdiag.send(SIGTERM);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK_MESSAGE((WIFSIGNALED(*status) && WTERMSIG(*status) == SIGTERM), describe_status(status));

  auto analysis = analyze(tmp / "job");
  auto& run = only_run(analysis.document);
  CHECK(run["job_status"]["signal"] == SIGTERM);
  CHECK_FALSE(has_note(run, "forwarded SIGHUP"));
  CHECK(has_note(run, "forwarded SIGTERM"));
}

}  // namespace ftdiag::itest
