// Verdicts on real PyTorch jobs that die the ways fine-tuning jobs die
// (tests/torch_jobs/scenarios.py): two ranks over gloo started by
// torch.multiprocessing, AdamW, DataLoader workers, torch.load, each job in a
// real memory cgroup like a container or a Slurm step. The OOM kills are the
// kernel's own, the segfault a real fault in native code, the SIGKILL from
// outside a real process's.
#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/report_checks.h"

namespace ftdiag::itest {
namespace {


// Every scenario dies within a minute on two slow cores; the deadline only
// catches a job that did not die the way it should.
constexpr double kScenarioDeadline = 150;

// Two ranks and the launcher, each with torch imported, take ~400 MiB of a
// cgroup. ftdiag runs in the cgroup too; sanitized, it and its helpers (the
// relays, the tracer's cleaner) charge ~250 MiB more: with 128 the kernel
// once chose the sanitized ftdiag as the OOM victim while torch imported.
#ifdef FTDIAG_SANITIZED
constexpr std::uint64_t kFtdiagMiB = 256;
#else
constexpr std::uint64_t kFtdiagMiB = 0;
#endif

bool scenario_torch_available() {
  static const bool available = run(Launch{{kDebianPython, "-c", "import torch"}}, 60).exited_with(0);
  return available;
}

std::string scenarios_script() { return std::string(FTDIAG_SOURCE_DIR) + "/tests/torch_jobs/scenarios.py"; }

using Sandbox = std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string>;

// A memory cgroup of `mib` (plus what ftdiag itself needs), or why a torch
// scenario cannot run here.
Sandbox torch_sandbox(std::uint64_t mib) {
  if (!scenario_torch_available()) return std::string("python3-torch is not installed (scripts/install-deps.sh installs it)");
  return MemoryCgroupSandbox::create_any((mib + kFtdiagMiB) << 20);
}

// `ftdiag run` of a scenario, its job directory tmp/job, in the cgroup.
Launch scenario_launch(const TempDir& tmp, const MemoryCgroupSandbox& cgroup, const std::string& scenario,
                       const std::vector<std::string>& extra = {}) {
  std::vector<std::string> job = {kDebianPython, scenarios_script(), "--scenario", scenario};
  job.insert(job.end(), extra.begin(), extra.end());
#ifdef FTDIAG_SANITIZED
  // A sanitized ftdiag holds ~300 MiB (its instrumented binary's pages), as
  // much as a rank here, and where it cannot lower its own oom_score_adj
  // (no CAP_SYS_RESOURCE) the OOM killer may pick it instead of the rank a
  // scenario grows. The job's tree is made the likelier victim, as a
  // release build's 10 MiB supervisor never competes.
  job.insert(job.begin(), {"/bin/sh", "-c", "echo 300 > /proc/self/oom_score_adj && exec \"$@\"", "sh"});
#endif
  Launch launch{ftdiag_run(tmp / "job", job)};
  launch.cgroup_procs = cgroup.procs_file();
  return launch;
}

// What a failure message needs to show why the verdict came out as it did:
// the verdict, each finding with its evidence and reasons, how each process
// ended, the kernel's records and the console's phases. Read-only: doctest
// builds it only when a check fails, and the checks after it still read the
// same document.
std::string findings_text(const Analysis& analysis) {
  const json& report = analysis.report;
  const json none;
  auto field = [&](const json& object, const char* key) -> const json& {
    return object.is_object() && object.contains(key) ? object.at(key) : none;
  };
  std::string text = "verdict: " + field(report, "verdict").dump() + "\nfindings:";
  for (const auto& f : field(report, "findings")) {
    text += "\n  " + field(f, "cause").dump() + " " + field(f, "rule").dump() + " " + field(f, "confidence").dump() + ": " +
            field(f, "summary").dump();
    for (const auto& e : field(f, "evidence")) text += "\n    " + field(e, "fact").dump() + " = " + field(e, "display").dump();
    for (const auto& r : field(f, "supporting")) text += "\n    + " + field(r, "says").dump();
    for (const auto& r : field(f, "contradicting")) text += "\n    - " + field(r, "says").dump();
  }
  for (const auto& host : field(analysis.document, "hosts")) {
    for (const auto& run : field(host, "runs")) {
      text += "\nprocesses:";
      for (const auto& p : field(run, "processes")) {
        text += "\n  " + field(p, "pid").dump() + " (parent " + field(p, "ppid").dump() + "): " +
                field(field(field(p, "death"), "status"), "description").dump() + ", peak RSS " +
                field(p, "peak_rss_bytes").dump();
      }
      text += "\nkernel: " + field(field(run, "kernel"), "records").dump();
      text += "\nphases: " + field(field(run, "console"), "phases").dump();
    }
  }
  return text;
}

// Where a process stands in the job's tree: 0 the launcher (the scenario
// script), 1 a rank it spawned, 2 a rank's DataLoader worker; -1 when it is
// not below the launcher.
int depth_below_launcher(json& run, int pid) {
  int depth = 0;
  for (json* p = find_process(run, pid); p != nullptr && depth < 8; ++depth) {
    auto& argv = (*p)["argv"];
    if (argv.is_array() && argv.size() >= 2 && argv[1].get<std::string>().find("scenarios.py") != std::string::npos) {
      return depth;
    }
    if (!(*p)["ppid"].is_number()) break;
    p = find_process(run, (*p)["ppid"].get<int>());
  }
  return -1;
}

// The depth below the launcher of the processes the kernel (or anyone) SIGKILLed.
std::vector<int> sigkilled_depths(json& run) {
  std::vector<int> depths;
  for (auto& p : run["processes"]) {
    if (p["death"].is_object() && p["death"]["status"]["signal"] == SIGKILL) {
      depths.push_back(depth_below_launcher(run, p["pid"].get<int>()));
    }
  }
  return depths;
}

bool contains(const std::vector<int>& values, int value) {
  return std::find(values.begin(), values.end(), value) != values.end();
}

// A shell script whose process is called NAME (the kernel names a script's
// process after its file), so the sender of its signal is recognisable.
fs::path scenario_sender_script(const TempDir& tmp, const std::string& name, const std::string& body) {
  const auto path = tmp / name;
  write_text(path, "#!/bin/sh\n" + body + "\n");
  ::chmod(path.c_str(), 0755);
  return path;
}

}  // namespace

TEST_CASE("real torch scenarios: every rank loading a full checkpoint is host-oom-model-load") {
  // Each rank loads 4 x 96 MiB of shards: both together need ~1.2 GiB.
  auto made = torch_sandbox(900);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  // The checkpoint is written outside the cgroup: writing is not the test.
  const std::string checkpoint = (tmp / "checkpoint").string();
  auto prepared = run(Launch{{kDebianPython, scenarios_script(), "--scenario", "load-oom", "--prepare", "--checkpoint", checkpoint}}, 60);
  REQUIRE_MESSAGE(prepared.exited_with(0), prepared.describe());

  auto outcome = run(scenario_launch(tmp, *cgroup, "load-oom", {"--checkpoint", checkpoint}), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());  // torch.multiprocessing's spawn failed

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  CHECK(contains(sigkilled_depths(only_run(analysis.document)), 1));  // a rank
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-model-load");
  CHECK(verdict["scope"] == "cgroup");
  // The Python probe saw torch.load open in a rank when it died: the
  // framework's own word for the phase, which outranks the progress bar.
  CHECK(verdict["summary"].get<std::string>().find("torch.load began (the Python probe's marker, pid ") != std::string::npos);
  CHECK(verdict["summary"].get<std::string>().find(", rank ") != std::string::npos);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: a DataLoader worker growing until it is OOM-killed is host-oom-dataloader") {
  // Four workers (two per rank) each cache 24 MiB per batch. A forked worker
  // starts with its rank's memory, less the rank's file pages; the limit
  // leaves each worker room to outgrow its rank by ~100 MiB, so a worker is
  // the process the kernel kills.
  auto made = torch_sandbox(1300);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  auto outcome = run(scenario_launch(tmp, *cgroup, "worker-oom"), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  // The rank noticed its worker's death and failed with PyTorch's own words.
  CHECK_MESSAGE(outcome.err.find("is killed by signal: Killed.") != std::string::npos, outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  CHECK(contains(sigkilled_depths(only_run(analysis.document)), 2));  // a rank's worker
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-dataloader");
  CHECK(verdict["scope"] == "cgroup");
  CHECK(verdict["summary"].get<std::string>().find("worker") != std::string::npos);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: losses and gradients kept across steps climb to the limit: host-oom-growth") {
  // ~400 MiB after start-up, then ~1.4 MiB more per step and rank: the
  // climb takes 20-30 s here, at least 1.5x the level it starts from.
  auto made = torch_sandbox(1200);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  auto outcome = run(scenario_launch(tmp, *cgroup, "leak"), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  CHECK(contains(sigkilled_depths(only_run(analysis.document)), 1));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-growth");
  CHECK(verdict["scope"] == "cgroup");
  CHECK(verdict["summary"].get<std::string>().find("steady-climb") != std::string::npos);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: flat training then one huge batch is container-oom, not growth") {
  // Training stands at ~400 MiB for 15 s; then rank 0's long batch needs
  // 2 GiB at once.
  auto made = torch_sandbox(900);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  auto outcome = run(scenario_launch(tmp, *cgroup, "flat-jump"), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  CHECK(contains(sigkilled_depths(only_run(analysis.document)), 1));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "container-oom");
  CHECK(verdict["scope"] == "cgroup");
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: a rank SIGKILLed by a scheduler script is external-kill naming the sender") {
  // Far from the limit: nothing but the scheduler kills here.
  auto made = torch_sandbox(1500);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  Process ftdiag(scenario_launch(tmp, *cgroup, "external-kill"));
  auto line = ftdiag.wait_for_line("rank 1 pid ", 90);
  REQUIRE_MESSAGE(line, ftdiag.err());
  const int rank1 = pid_after(*line, "rank 1 pid ");
  REQUIRE(rank1 > 0);
  REQUIRE_MESSAGE(ftdiag.wait_for_output("{'loss': ", 60), ftdiag.err());  // training, not starting up
  const auto script = scenario_sender_script(tmp, "scheduler", "kill -KILL " + std::to_string(rank1));
  auto sent = run(Launch{{script.string()}}, 10);
  REQUIRE_MESSAGE(sent.exited_with(0), sent.describe());
  const auto status = ftdiag.finish(60);
  REQUIRE(status);

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  auto& run_json = only_run(analysis.document);
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "external-kill");
  if (run_json["started"]["mechanisms"]["signal-trace"] == true) {
    CHECK(verdict["rule"] == "sigkill-sent-by-a-process");
    CHECK(verdict["summary"].get<std::string>().find("(scheduler)") != std::string::npos);
  }
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: a rank faulting in native code mid-step is framework-bug-segfault") {
  auto made = torch_sandbox(1500);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  auto outcome = run(scenario_launch(tmp, *cgroup, "segfault-step"), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "framework-bug-segfault");
  CHECK(verdict["summary"].get<std::string>().find("crashed with SIGSEGV (11)") != std::string::npos);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

TEST_CASE("real torch scenarios: a Python exception in a rank's step is said as the error it reported") {
  auto made = torch_sandbox(1500);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  auto outcome = run(scenario_launch(tmp, *cgroup, "exception"), kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "unknown");
  const auto summary = verdict["summary"].get<std::string>();
  // Usually rank 1 exits first: the job's exit is the incident, the other
  // rank's SIGTERM is torch.multiprocessing tearing the job down. But rank 1's
  // process group closing its sockets can make rank 0 abort (SIGABRT) while
  // rank 1 is still shutting down; then that abort is the first death, and
  // the exception rank 1 printed before it must still be named.
  const bool peer_died_first = analysis.report["verdict"]["summary"].get<std::string>().find(" was killed by ") != std::string::npos;
  if (peer_died_first) {
    CHECK(summary.find("after the job reported `RuntimeError: loss is NaN at step 3") != std::string::npos);
  } else {
    CHECK(summary.find("exited with code 1 after `RuntimeError: loss is NaN at step 3") != std::string::npos);
    CHECK(summary.find("not a kill by a signal") != std::string::npos);
  }
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

}  // namespace ftdiag::itest

namespace ftdiag::itest {

// The last gasp, for real: a SIGKILL cannot be caught, so ftdiag looks just
// before it. The job's ranks save a ZeRO-3-like partition (fits), then a
// ZeRO-2-like consolidated checkpoint (does not); the job's own
// sitecustomize still runs under the Python probe.
TEST_CASE("real torch scenarios: the last gasp before a save is OOM-killed holds the saving code's Python stack") {
  auto made = torch_sandbox(1500);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto user_path = tmp / "user-site";
  fs::create_directories(user_path);
  const auto ran = tmp / "user-sitecustomize-ran";
  write_text(user_path / "sitecustomize.py",
             "import os\nwith open(" + json(ran.string()).dump() + ", 'a') as f:\n    f.write('%d\\n' % os.getpid())\n");
  auto launch = scenario_launch(tmp, *cgroup, "consolidate-save");
  launch.env["PYTHONPATH"] = user_path.string();
  auto outcome = run(launch, kScenarioDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());

  auto analysis = analyze(tmp / "job");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(findings_text(analysis));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["scope"] == "cgroup");

  const json& run = only_run(analysis.document);
  // The victim: the rank the kernel's OOM killer SIGKILLed.
  std::optional<int> victim;
  double died = 0;
  for (const auto& process : run["processes"]) {
    const auto& death = process["death"];
    if (death.is_object() && death["status"]["signal"].is_number() && death["status"]["signal"] == SIGKILL) {
      victim = process["pid"].get<int>();
      died = death["time"].get<double>();
    }
  }
  REQUIRE(victim);
  // A gasp before the kill, near the limit, that asked the ranks.
  REQUIRE_FALSE(run["last_gasps"].empty());
  const auto& gasp = run["last_gasps"][0];
  CHECK(gasp["time"].get<double>() <= died);
  CHECK(gasp["pressure"].get<double>() >= 0.95);
  CHECK(gasp["asked"].size() >= 2);
  // What the victim was running then: the save, in the job's own function.
  bool stack_before_kill = false;
  for (const auto& stacks : run["python_stacks"]) {
    if (stacks["pid"] == *victim && stacks["time"].get<double>() <= died + 0.5 &&
        stacks["text"].get<std::string>().find(" in save_checkpoint") != std::string::npos) {
      stack_before_kill = true;
    }
  }
  CHECK(stack_before_kill);
  // The save phase markers: the partition save began and ended; the
  // consolidated save began in the victim and never ended.
  int ended_saves = 0;
  bool open_in_victim = false;
  for (const auto& marker : run["probe_markers"]) {
    if (marker["what"] != "torch.save" || marker["phase"] != "checkpoint-save") continue;
    ended_saves += marker["marker"] == "end";
    if (marker["pid"] == *victim && marker["marker"] == "begin") open_in_victim = true;
  }
  CHECK(ended_saves >= 2);  // one per rank
  CHECK(open_in_victim);
  bool quoted = false;
  for (const auto& finding : analysis.report["findings"]) {
    for (const auto& support : finding["supporting"]) {
      const auto says = support["says"].get<std::string>();
      quoted = quoted || (says.find("the code running was") != std::string::npos && says.find("save_checkpoint") != std::string::npos);
    }
  }
  CHECK(quoted);
  // The job's own sitecustomize ran in the launcher and in both ranks.
  const auto pids = read_text(ran);
  CHECK(std::count(pids.begin(), pids.end(), '\n') >= 3);
  // Reported as well as judged: the terminal, Markdown and HTML of this real crash.
  check_every_report(tmp / "job", verdict["cause"].get<std::string>(), tmp.path());
}

}  // namespace ftdiag::itest
