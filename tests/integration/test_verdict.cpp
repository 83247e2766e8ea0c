// End to end, real crashes to verdicts: a job really killed by its memory
// cgroup's OOM killer while it saves a checkpoint, or after its memory grew
// steadily; a job SIGKILLed from outside; a clean exit. The rules are the
// built-in ones (rules/), the evidence what `ftdiag run` recorded.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <signal.h>

#include <string>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/memory_limits.h"
#include "integration/oom_jobs.h"

namespace ftdiag::itest {
namespace {

json judged(const fs::path& job_dir) {
  auto analysis = analyze(job_dir);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  return analysis.report;
}

json* finding_of(json& report, const std::string& rule) {
  for (auto& f : report["findings"]) {
    if (f["rule"] == rule) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("verdict: a real memcg OOM during a checkpoint save is host-oom-checkpoint-save, scope cgroup") {
  auto cgroup = any_memory_cgroup();
  if (!cgroup) return;
  TempDir tmp;
  Launch launch{loud(ftdiag_run(tmp / "job", print_then_alloc("Saving model checkpoint to out/checkpoint-500", {std::to_string(kOomTestLimitMiB / 8), "20", "4096"})))};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.killed_by(SIGKILL), outcome.describe());
  // `ftdiag run` printed the verdict too.
  CHECK_MESSAGE(outcome.err.find("ftdiag verdict: the job ran out of host memory while saving a checkpoint") != std::string::npos, outcome.err);
  CHECK_MESSAGE(outcome.err.find("\n  host-oom-checkpoint-save, scope cgroup, confidence") != std::string::npos, outcome.err);

  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump());
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["scope"] == "cgroup");
  CHECK(verdict["confidence"].get<double>() >= 0.8);
  CHECK(verdict["summary"].get<std::string>().find(std::to_string(kOomTestLimitMiB) + ".0 MiB") != std::string::npos);
  json* finding = finding_of(report, "oom-at-checkpoint-save-cgroup");
  REQUIRE(finding);
  // Findings cite their evidence: each pointer resolves in the evidence document.
  for (auto& cited : (*finding)["evidence"]) {
    const auto pointer = cited["pointer"].get<std::string>();
    if (pointer.empty()) continue;
    CHECK_MESSAGE(report["evidence"].contains(json::json_pointer(pointer)), pointer);
  }
  CHECK_FALSE((*finding)["remediation"].empty());
}

TEST_CASE("verdict: a real memcg OOM after steady growth, with no save, is host-oom-growth or container-oom") {
  auto cgroup = any_memory_cgroup();
  if (!cgroup) return;
  TempDir tmp;
  // A 128th of the limit (at least 1 MiB) every 150 ms: about 10 s of
  // climbing before the kill, so even a slow sanitized build under load
  // takes the 10 samples (every 0.5 s, faster near the limit) the growth
  // rule asks for. A sanitized ftdiag shares the cgroup and holds a good
  // part of its larger limit, which leaves the job about half the climb.
  const auto step_mib = std::max<std::uint64_t>(1, kOomTestLimitMiB / 128);
  Launch launch{ftdiag_run(tmp / "job", crasher_argv("alloc", {std::to_string(step_mib), "150", "4096"}))};
  launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.killed_by(SIGKILL), outcome.describe());

  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump());
  CHECK(verdict["cause"] == "host-oom-growth");
  CHECK(verdict["scope"] == "cgroup");
  CHECK_FALSE(finding_of(report, "oom-at-checkpoint-save-cgroup"));
  // The limit rule fires too, ranked below the more specific cause.
  json* limit = finding_of(report, "oom-at-cgroup-limit");
  REQUIRE(limit);
  CHECK((*limit)["confidence"].get<double>() <= verdict["confidence"].get<double>());
}

TEST_CASE("verdict: a job SIGKILLed from outside with memory to spare is external-kill, not an OOM") {
  TempDir tmp;
  Launch launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", "echo \"ready $$\"; exec sleep 60"})};
  Process ftdiag(launch);
  auto line = ftdiag.wait_for_line("ready ");
  REQUIRE(line);
  const int job_pid = std::stoi(line->substr(line->find(' ') + 1));
  REQUIRE(::kill(job_pid, SIGKILL) == 0);
  auto status = ftdiag.finish();
  REQUIRE(status);
  CHECK(WIFSIGNALED(*status));

  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("report: ", report["verdict"].dump(), report["findings"].dump());
  auto& run = report["evidence"]["hosts"][0]["runs"][0];
  if (run["started"]["mechanisms"]["signal-trace"] == true) {
    // The tracer saw who sent it: this test, not the kernel.
    CHECK(verdict["cause"] == "external-kill");
    CHECK(verdict["rule"] == "sigkill-sent-by-a-process");
    CHECK(verdict["summary"].get<std::string>().find("pid " + std::to_string(::getpid())) != std::string::npos);
    return;
  }
  if (run["memory"]["cgroup"].contains("missing")) {
    // Without cgroup counters an OOM cannot be ruled out: unknown is honest.
    CHECK(verdict["cause"] == "unknown");
    return;
  }
  CHECK(verdict["cause"] == "external-kill");
  CHECK(verdict["scope"].is_null());
  for (auto& f : report["findings"]) CHECK(f["cause"] != "container-oom");
}

TEST_CASE("verdict: a clean exit has no finding") {
  TempDir tmp;
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"exit", "0"}))});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  auto report = judged(tmp / "job");
  CHECK(report["findings"].empty());
  CHECK(report["verdict"]["cause"] == "unknown");
  CHECK(report["verdict"]["confidence"] == 0);
  CHECK(report["verdict"]["needed"].empty());  // nothing to decide
  CHECK(report["schema_version"] == 6);
  CHECK(report["ranks"].is_null());  // one run: no table of ranks
  CHECK(report["verdict"]["ended_normally"] == true);
}

TEST_CASE("verdict: a likely but unsure death says in words what would make it sure and how to get it, the fact names only in JSON") {
  TempDir tmp;
  const auto folder = tmp / "job";
  std::filesystem::create_directories(folder);
  {
    std::ofstream log(folder / "train.log");
    log << "Epoch 1: 100%|####| 50/50\nrun.sh: line 3: 12345 Killed                  python train.py\n";
  }
  auto text = run(Launch{{ftdiag_binary().string(), "analyze", folder.string()}});
  REQUIRE_MESSAGE(text.exited_with(0), text.describe());
  INFO(text.out);
  // A bare SIGKILL no sender in the logs owns: the OOM killer, likely, not surely.
  CHECK(text.out.find("ftdiag verdict: the job ran out of host memory\n  host-oom, confidence 50%\n") != std::string::npos);
  CHECK(text.out.find("what would make it sure:\n    1. the kernel's log of the node the job ran on") != std::string::npos);
  CHECK(joined(text.out).find("then `ftdiag analyze " + folder.string() + " --kernel-log kernel.log`") != std::string::npos);
  CHECK(text.out.find("cgroup.oom_kill") == std::string::npos);

  auto report = judged(folder);
  auto& verdict = report["verdict"];
  CHECK(verdict["cause"] == "host-oom");
  REQUIRE(verdict["needed"].size() == 3);
  CHECK(verdict["needed"][0]["id"] == "kernel-log");
  CHECK(std::find(verdict["needed"][0]["causes"].begin(), verdict["needed"][0]["causes"].end(), "host-oom") !=
        verdict["needed"][0]["causes"].end());
}

TEST_CASE("verdict: a job that succeeds after SIGKILLing its own helper ended normally, the kill a note") {
  TempDir tmp;
  // The job kills its own helper, waits for it, and succeeds.
  const std::string script = "sleep 60 & helper=$!; kill -9 $helper; wait $helper; exit 0";
  auto outcome = run(Launch{loud(ftdiag_run(tmp / "job", {"/bin/sh", "-c", script}))});
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  CHECK_MESSAGE(outcome.err.find("ftdiag verdict: the job ended normally\n  The job ended normally (exit code 0)") != std::string::npos,
                outcome.err);
  CHECK(outcome.err.find("note: 1 process(es) inside the job died by a signal (1 by SIGKILL)") != std::string::npos);

  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", report["findings"].dump());
  CHECK(verdict["cause"] == "unknown");
  CHECK(verdict["summary"].get<std::string>().find("ended normally") != std::string::npos);
  REQUIRE(verdict["notes"].size() == 1);
  CHECK(report["findings"].empty());
  // The helper's death is kept whole in the evidence, with its signal.
  bool helper_killed = false;
  for (auto& p : only_run(report["evidence"])["processes"]) {
    if (p["death"].is_object() && p["death"]["status"]["signal"] == SIGKILL) helper_killed = true;
  }
  CHECK(helper_killed);
}

TEST_CASE("verdict: a Python exception (exit 1) is said as what happened, not as missing facts") {
  TempDir tmp;
  const std::string program = "def step():\n    raise RuntimeError('loss is NaN at step 3')\nprint('training')\nstep()\n";
  auto outcome = run(Launch{loud(ftdiag_run(tmp / "job", {"/usr/bin/python3", "-c", program}))});
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump());
  CHECK(verdict["cause"] == "unknown");
  const auto summary = verdict["summary"].get<std::string>();
  CHECK(summary.find("The job exited with code 1 after `RuntimeError: loss is NaN at step 3`") == 0);
  CHECK(summary.find("not a kill by a signal") != std::string::npos);
  CHECK(summary.find("missing") == std::string::npos);
  CHECK(joined(outcome.err).find(summary) != std::string::npos);  // ftdiag run said the same
}

TEST_CASE("verdict: a failure no recogniser knows is read by its words, at moderate confidence, by run and analyze alike") {
  TempDir tmp;
  // A wording no framework's source prints: only the failure words read it.
  const std::string program =
      "print('step 7 loss 2.02', flush=True)\n"
      "raise RuntimeError('accelerator 0 reported: Out Of Memory while allocating 2147483648 bytes')\n";
  auto outcome = run(Launch{loud(ftdiag_run(tmp / "job", {"/usr/bin/python3", "-c", program}))});
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump());
  CHECK(verdict["cause"] == "gpu-oom");
  CHECK(verdict["rule"] == "words-of-gpu-memory-running-out");
  CHECK(verdict["confidence"].get<double>() < 0.7);
  const auto summary = verdict["summary"].get<std::string>();
  CHECK(summary.find("Out Of Memory while allocating") != std::string::npos);
  CHECK(joined(outcome.err).find(summary) != std::string::npos);  // ftdiag run said the same
}

TEST_CASE("verdict: a Python process faulting in native code with memory to spare is framework-bug-segfault") {
  TempDir tmp;
  // ctypes reads address 0: a real SIGSEGV inside a C library call.
  const std::string program = "print('step 12 loss 2.31', flush=True)\nimport ctypes\nctypes.string_at(0)\n";
  auto outcome = run(Launch{loud(ftdiag_run(tmp / "job", {"/usr/bin/python3", "-c", program}))});
  REQUIRE_MESSAGE(outcome.killed_by(SIGSEGV), outcome.describe());
  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", report["findings"].dump());
  if (only_run(report["evidence"])["memory"]["cgroup"].contains("missing")) {
    // Without the cgroup's OOM counter a fault under memory pressure cannot be ruled out.
    CHECK(verdict["cause"] == "unknown");
    return;
  }
  CHECK(verdict["cause"] == "framework-bug-segfault");
  CHECK(verdict["confidence"].get<double>() < 0.7);  // moderate until stacks say more
  const auto summary = verdict["summary"].get<std::string>();
  CHECK(summary.find("python3 -c print('step 12 loss 2.31', flush=True) import ctypes") != std::string::npos);
  CHECK(summary.find("crashed with SIGSEGV (11)") != std::string::npos);
  // Among the reasons (the screen's summary keeps those that fit; every one is in the report).
  bool last_line_said = false;
  for (auto& f : report["findings"]) {
    for (auto& s : f["supporting"]) last_line_said = last_line_said || s["says"] == "the last line it printed: \"step 12 loss 2.31\"";
  }
  CHECK(last_line_said);
}

TEST_CASE("verdict: a SIGTERM from outside, then the job's own SIGKILL, names both signals") {
  TempDir tmp;
  // Like torchrun: on SIGTERM it kills its worker with SIGKILL and fails.
  const std::string script = "trap 'kill -9 $child; exit 1' TERM; sleep 60 & child=$!; echo ready; wait";
  Process ftdiag(Launch{ftdiag_run(tmp / "job", {"/bin/sh", "-c", script})});
  REQUIRE(ftdiag.wait_for_output("ready"));
  ftdiag.send(SIGTERM);
  auto status = ftdiag.finish();
  REQUIRE(status);
  auto report = judged(tmp / "job");
  auto& verdict = report["verdict"];
  INFO("verdict: ", verdict.dump(), "\nfindings: ", report["findings"].dump());
  CHECK(verdict["cause"] == "external-kill");
  CHECK(verdict["rule"] == "signal-forwarded-from-outside");
  const auto summary = verdict["summary"].get<std::string>();
  CHECK(summary.find("ftdiag received SIGTERM (15)") != std::string::npos);
  CHECK(summary.find("died by SIGKILL (9)") != std::string::npos);
}

}  // namespace ftdiag::itest

namespace ftdiag::itest {
namespace {

// The verdict block of a text output: from "ftdiag verdict:" to the blank
// line before the run's summary (which names the folder as each command
// was given it).
std::string verdict_block(const std::string& text) {
  const auto at = text.find("ftdiag verdict:");
  if (at == std::string::npos) return {};
  const auto end = text.find("\n\n", at);
  return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

// `ftdiag run` judges from its own state when the job ends; `ftdiag analyze`
// folds the journal it left. Both must say the same, word for word.
void check_live_and_post_mortem_agree(const std::vector<std::string>& job, const std::string& expected_cause = {},
                                      MemoryCgroupSandbox* cgroup = nullptr) {
  TempDir tmp;
  Launch launch{loud(ftdiag_run(tmp / "job", job))};
  if (cgroup) launch.cgroup_procs = cgroup->procs_file();
  auto outcome = run(launch, 60);
  REQUIRE_MESSAGE(outcome.status, outcome.describe());
  const auto live = verdict_block(outcome.err);
  REQUIRE_MESSAGE(!live.empty(), "ftdiag run printed no verdict: ", outcome.err);
  if (!expected_cause.empty()) CHECK_MESSAGE(live.find("\n  " + expected_cause + ",") != std::string::npos, live);
  auto analysis = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "job").string()}});
  REQUIRE_MESSAGE(analysis.exited_with(0), analysis.describe());
  CHECK(verdict_block(analysis.out) == live);
}

}  // namespace

TEST_CASE("verdict: ftdiag run's verdict, from its own state, is the one analyze gives from the journal") {
  SUBCASE("a segfault") { check_live_and_post_mortem_agree(crasher_argv("die", {"segv"})); }
  SUBCASE("a SIGKILL") { check_live_and_post_mortem_agree(crasher_argv("die", {"signal", "KILL"})); }
  SUBCASE("a clean exit") { check_live_and_post_mortem_agree(crasher_argv("die", {"exit", "0"})); }
  SUBCASE("a shell that runs many short helpers, then fails") {
    check_live_and_post_mortem_agree({"/bin/sh", "-c", "for i in $(seq 200); do /bin/true; done; echo done; exit 3"});
  }
  SUBCASE("a memcg OOM at a checkpoint save") {
    auto cgroup = any_memory_cgroup();
    if (!cgroup) return;
    check_live_and_post_mortem_agree(
        print_then_alloc("Saving model checkpoint to out/checkpoint-500", {std::to_string(kOomTestLimitMiB / 8), "20", "4096"}),
        "host-oom-checkpoint-save", cgroup.get());
  }
}

}  // namespace ftdiag::itest
