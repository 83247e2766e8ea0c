// Who sent the -9: a SIGKILL from another process (a "scheduler" script), a
// SIGTERM to ftdiag, and a whole job step killed the way Slurm does it
// (SIGTERM to every process, a grace period, SIGKILL to every process,
// ftdiag included). The sender is named in the evidence and in the verdict.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

// A shell script whose process is called NAME (the kernel names a script's
// process after its file): the sender the tracer must name.
fs::path sender_script(const TempDir& tmp, const std::string& name, const std::string& body) {
  const auto path = tmp / name;
  write_text(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

bool tracing_available() {
  return ::geteuid() == 0 && (::access("/sys/kernel/tracing", F_OK) == 0 || ::access("/sys/kernel/debug", F_OK) == 0);
}

// The job's pid, from the run record of the only run.
int job_pid(const fs::path& job_dir) {
  const auto folders = run_folders(job_dir);
  if (folders.empty()) return -1;
  for (auto& record : read_journal(folders[0])) {
    if (record["type"] == "run") return record["job_pid"].get<int>();
  }
  return -1;
}

std::string findings_text(json& report) {
  std::string text = report["verdict"].dump();
  for (auto& f : report["findings"]) text += f.dump();
  return text;
}

}  // namespace

TEST_CASE("signal senders: a SIGKILL sent by a scheduler script is named with its pid and name") {
  if (!tracing_available()) FTDIAG_SKIP("tracing the senders of signals needs root and tracefs");
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", crasher_argv("die", {"hang"}))};
  Process ftdiag(launch);
  REQUIRE_MESSAGE(ftdiag.wait_for_output("ready"), ftdiag.err());
  // The job can print before ftdiag has journaled the run record.
  int job = -1;
  REQUIRE(wait_until([&] { return (job = job_pid(tmp / "job")) > 0; }, 10));
  const auto script = sender_script(tmp, "scheduler", "kill -KILL " + std::to_string(job));
  auto sent = run(Launch{{script.string()}}, 10);
  REQUIRE_MESSAGE(sent.exited_with(0), sent.describe());
  const auto status = ftdiag.finish();
  REQUIRE(status);

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  INFO("signals: ", run["signals"].dump());
  bool traced = false;
  for (auto& s : run["signals"]) {
    traced |= s["signal"] == SIGKILL && s["target_pid"] == job && s["sender_comm"] == "scheduler" && s["code"] == 0;
  }
  CHECK_MESSAGE(traced, "no SIGKILL record from the scheduler script to pid ", job);
  auto& verdict = analysis.report["verdict"];
  CHECK_MESSAGE(verdict["cause"] == "external-kill", verdict.dump());
  CHECK_MESSAGE(verdict["rule"] == "sigkill-sent-by-a-process", verdict.dump());
  CHECK_MESSAGE(verdict["summary"].get<std::string>().find("(scheduler)") != std::string::npos, verdict.dump());
}

TEST_CASE("signal senders: the sender of a SIGTERM to ftdiag is recorded and named in the verdict") {
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", {"/bin/sleep", "60"})};
  Process ftdiag(launch);
  REQUIRE(wait_until([&] { return !run_folders(tmp / "job").empty() && !read_journal(run_folders(tmp / "job")[0]).empty(); }));
  // A scheduler lives on after its kill: ftdiag reads its command line then.
  const auto script = sender_script(tmp, "scheduler", "kill -TERM " + std::to_string(ftdiag.pid()) + "; sleep 2");
  auto sent = run(Launch{{script.string()}}, 10);
  REQUIRE_MESSAGE(sent.exited_with(0), sent.describe());
  REQUIRE(ftdiag.finish());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  INFO("received: ", run["received_signals"].dump());
  REQUIRE(run["received_signals"].size() >= 1);
  auto& received = run["received_signals"][0];
  CHECK(received["signal"] == SIGTERM);
  CHECK(received["sender_comm"] == "scheduler");
  CHECK(received["sender_uid"] == static_cast<int>(::getuid()));
  CHECK(received["forwarded"] == true);
  CHECK(received["sender_command"].get<std::string>().find("scheduler") != std::string::npos);
  auto& report = analysis.report;
  CHECK_MESSAGE(report["verdict"]["cause"] == "external-kill", report["verdict"].dump());
  CHECK_MESSAGE(findings_text(report).find("(scheduler), uid") != std::string::npos, findings_text(report));
}

TEST_CASE("signal senders: a whole step killed like Slurm does (SIGTERM to all, grace, SIGKILL to all) is external-kill") {
  TempDir tmp;
  // The job starts a checkpoint save when asked to stop, and never ends it.
  const std::string job_script =
      "trap 'echo \"Saving model checkpoint to out/checkpoint-100\"; sleep 30' TERM; echo ready; "
      "while :; do sleep 0.1; done";
  Launch launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", job_script})};
  Process ftdiag(launch);
  REQUIRE_MESSAGE(ftdiag.wait_for_output("ready"), ftdiag.err());
  // Every process of the step, ftdiag first: its own process group holds them all.
  const std::string group = std::to_string(::getpgid(ftdiag.pid()));
  const auto stepd = sender_script(tmp, "slurmstepd", "kill -TERM -" + group + "; sleep 1; kill -KILL -" + group);
  auto sent = run(Launch{{stepd.string()}}, 20);
  REQUIRE_MESSAGE(sent.exited_with(0), sent.describe());
  const auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK(WIFSIGNALED(*status));

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& run = only_run(analysis.document);
  CHECK(run["complete"] == false);
  REQUIRE(run["received_signals"].size() >= 1);
  CHECK(run["received_signals"][0]["sender_comm"] == "slurmstepd");
  auto& verdict = analysis.report["verdict"];
  INFO("findings: ", analysis.report["findings"].dump());
  CHECK_MESSAGE(verdict["cause"] == "external-kill", verdict.dump());
  CHECK_MESSAGE(verdict["summary"].get<std::string>().find("slurmstepd") != std::string::npos, verdict.dump());
}

}  // namespace ftdiag::itest
