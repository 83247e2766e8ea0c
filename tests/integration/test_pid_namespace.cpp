// ftdiag as PID 1 of a pid namespace (a container entrypoint, `unshare
// --pid`): it cannot die by its own signal, so it exits 128+N like tini; and
// the evidence records each process's pid in every namespace (NSpid), so a
// kernel record written with host pids can be matched.
#include <signal.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <fstream>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// unshare(1) runs ftdiag as PID 1 of a new pid namespace with its own /proc.
std::optional<std::vector<std::string>> in_new_pid_namespace(std::vector<std::string> argv) {
  if (::access("/usr/bin/unshare", X_OK) != 0) return std::nullopt;
  std::vector<std::string> wrapped = {"/usr/bin/unshare", "--pid", "--fork", "--mount-proc"};
  wrapped.insert(wrapped.end(), argv.begin(), argv.end());
  return wrapped;
}

}  // namespace

TEST_CASE("pid namespace: as PID 1, ftdiag exits 128+N for a job killed by signal N") {
  if (!pid_namespaces_available()) FTDIAG_SKIP("cannot create a pid namespace here (needs root or user namespaces)");
  TempDir tmp;
  auto argv = in_new_pid_namespace(ftdiag_run(tmp / "job", crasher_argv("die", {"signal", "KILL"})));
  REQUIRE(argv);
  auto outcome = run(Launch{*argv});
  // unshare --fork passes on its child's status; ftdiag as PID 1 exited 137.
  CHECK_MESSAGE(outcome.exited_with(128 + SIGKILL), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run_json = only_run(analysis.document);
  CHECK(run_json["started"]["supervisor_pid"] == 1);
  CHECK(run_json["job_status"]["signal"] == SIGKILL);
  const int job_pid = run_json["started"]["job_pid"].get<int>();
  json* job = find_process(run_json, job_pid);
  REQUIRE(job);
  // Seen from inside, the namespace is the only one NSpid lists from here.
  REQUIRE(job->at("nspid").is_array());
  CHECK(job->at("nspid").back() == job_pid);
  CHECK(job->at("death")["status"]["signal"] == SIGKILL);
}

TEST_CASE("pid namespace: a job inside a namespace is recorded with its pid at every level") {
  if (!pid_namespaces_available()) FTDIAG_SKIP("cannot create a pid namespace here (needs root or user namespaces)");
  TempDir tmp;
  int release[2];
  REQUIRE(::pipe2(release, O_CLOEXEC) == 0);
  // ftdiag outside, the job's shell inside a new pid namespace: NSpid has two
  // levels. The shell waits for a line on stdin, so it lives until the
  // journal shows it.
  Launch launch{ftdiag_run(tmp / "job", {"/usr/bin/unshare", "--pid", "--fork", "/bin/sh", "-c", "read line; exit 3"})};
  launch.stdin_fd = release[0];
  Process ftdiag(launch);
  ::close(release[0]);
  bool nested_seen = false;
  for (auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
       !nested_seen && std::chrono::steady_clock::now() < deadline;) {
    std::error_code ec;  // the job directory appears only once ftdiag has started
    for (const auto& entry : fs::recursive_directory_iterator(tmp / "job", ec)) {
      if (entry.path().filename() != "journal.jsonl") continue;
      std::ifstream in(entry.path());
      for (std::string line; std::getline(in, line);) {
        auto j = json::parse(line, nullptr, false);
        if (!j.is_discarded() && j["type"] == "process" && j["nspid"].size() == 2) nested_seen = true;
      }
    }
    if (!nested_seen) ftdiag.wait_for_output("\x01never", 0.02);  // lets time pass while draining output
  }
  REQUIRE_MESSAGE(::write(release[1], "go\n", 3) == 3, "cannot release the job");
  ::close(release[1]);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK(WIFEXITED(*status));
  CHECK(WEXITSTATUS(*status) == 3);
  REQUIRE_MESSAGE(nested_seen, "the journal never showed a process with two NSpid levels");

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run_json = only_run(analysis.document);
  bool nested = false;
  for (auto& p : run_json["processes"]) {
    if (p["nspid"].size() != 2) continue;
    nested = true;
    CHECK(p["nspid"][0] == p["pid"]);  // outermost first: the pid as ftdiag sees it
    CHECK(p["nspid"][1] == 1);         // the first process of the new namespace
  }
  CHECK_MESSAGE(nested, run_json["processes"].dump());
}

}  // namespace ftdiag::itest
