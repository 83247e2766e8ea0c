// `ftdiag analyze` of the folder a real PyTorch job left when nothing but its
// own logs watched it (tests/torch_jobs/unsupervised_jobs.py): Debian's torch
// on CPU, started as users start it (`python3 train.py 2>&1 | tee`, a bash
// script, torchrun with two ranks over gloo), in a real memory cgroup. The
// OOM kills are the kernel's own, the segfault a real fault, the hang-up a
// real signal to the launcher; the verdict must name the cause, quote the
// line that shows it, and point at that line in the evidence.
#include <signal.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <doctest/doctest.h>

#include "skip.h"
#include "integration/cgroup_sandbox.h"
#include "integration/harness.h"
#include "integration/kernel_log.h"

namespace ftdiag::itest {
namespace {


// Each job dies within half a minute on two slow cores; the deadline only
// catches one that did not die the way it should.
constexpr double kJobDeadline = 120;

std::string torch_job(const std::string& name) { return std::string(FTDIAG_SOURCE_DIR) + "/tests/torch_jobs/" + name; }

// What a shell needs to see one word.
std::string quoted(const std::string& word) {
  std::string text = "'";
  for (char c : word) text += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return text + "'";
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + quoted(word);
  return text;
}

// torchrun with two ranks on this machine, running a scenario of the job.
// tests/torch_jobs/torchrun.py is torchrun itself, readable by Python 3.11.
std::vector<std::string> torchrun_job(const std::string& scenario, const fs::path& out) {
  return {kDebianPython, torch_job("torchrun.py"), "--standalone", "--nproc_per_node", "2",
          torch_job("unsupervised_jobs.py"), "--scenario", scenario, "--out", out.string()};
}

std::vector<std::string> plain_job(const std::string& scenario, const fs::path& out) {
  return {kDebianPython, torch_job("unsupervised_jobs.py"), "--scenario", scenario, "--out", out.string()};
}

using Sandbox = std::variant<std::unique_ptr<MemoryCgroupSandbox>, std::string>;

// A memory cgroup of `mib`, or why a torch job cannot run in one here.
Sandbox torch_sandbox(std::uint64_t mib) {
  if (!torch_available()) return std::string("python3-torch is not installed (scripts/install-deps.sh installs it)");
  return MemoryCgroupSandbox::create_any(mib << 20);
}

// `bash -c COMMAND` in the cgroup: the way a user starts a job and keeps its log.
Launch shell_in(const MemoryCgroupSandbox& cgroup, const std::string& command) {
  Launch launch{{"/bin/bash", "-c", command}};
  launch.cgroup_procs = cgroup.procs_file();
  return launch;
}

// The kernel's records from now on, as `dmesg` would have them for the job's time.
class KernelLogWindow {
 public:
  KernelLogWindow() {
    auto log = read_kernel_log();
    if (auto* why = std::get_if<std::string>(&log)) {
      unreadable_ = *why;
      return;
    }
    const auto& records = std::get<std::vector<KernelRecord>>(log);
    after_ = records.empty() ? 0 : records.back().sequence;
  }

  // Why the kernel's log cannot be read here, if it cannot.
  const std::optional<std::string>& unreadable() const { return unreadable_; }

  // The pids the OOM killer killed in `cgroup` since the window opened;
  // nullopt when the kernel's log cannot be read here.
  std::optional<std::vector<int>> oom_killed(const MemoryCgroupSandbox& cgroup) const {
    if (unreadable_) return std::nullopt;
    std::vector<int> pids;
    for (const auto& kill : find_oom_kills(records(), cgroup.name())) pids.push_back(kill.pid);
    return pids;
  }

  std::vector<KernelRecord> records() const {
    std::vector<KernelRecord> since;
    auto log = read_kernel_log();
    if (auto* records = std::get_if<std::vector<KernelRecord>>(&log)) {
      for (auto& record : *records) {
        if (record.sequence > after_) since.push_back(std::move(record));
      }
    }
    return since;
  }

  // Saved as /dev/kmsg gives them (`cat /dev/kmsg` rendering).
  void save(const fs::path& file) const {
    std::string text;
    for (const auto& record : records()) text += record.raw + "\n";
    write_text(file, text);
  }

 private:
  std::uint64_t after_ = 0;
  std::optional<std::string> unreadable_;
};

bool contains(const std::vector<int>& pids, int pid) { return std::find(pids.begin(), pids.end(), pid) != pids.end(); }

// `ftdiag analyze --format json --no-host-logs ARGS...`: this machine's own
// kernel log is never read, so only what the test hands over counts.
Analysis analyze_logs(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {ftdiag_binary().string(), "analyze", "--format", "json", "--no-host-logs"};
  argv.insert(argv.end(), args.begin(), args.end());
  Analysis analysis;
  analysis.outcome = run(Launch{argv}, 60);
  analysis.report = json::parse(analysis.outcome.out, nullptr, /*allow_exceptions=*/false);
  if (analysis.report.is_discarded() || !analysis.report.is_object()) analysis.report = nullptr;
  analysis.document = analysis.report.is_object() ? analysis.report["evidence"] : json();
  return analysis;
}

// The 1-based number of the first line of `file` that contains `needle`, and the line; 0 when none does.
std::pair<int, std::string> find_line(const fs::path& file, std::string_view needle) {
  const std::string text = read_text(file);
  int number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const auto end = std::min(text.find('\n', start), text.size());
    ++number;
    const std::string line = text.substr(start, end - start);
    if (line.find(needle) != std::string::npos) return {number, line};
    start = end + 1;
  }
  return {0, ""};
}

// The verdict's own finding (the one whose rule the verdict names); null when none is.
json verdict_finding(Analysis& analysis) {
  for (auto& finding : analysis.report["findings"]) {
    if (finding["rule"] == analysis.report["verdict"]["rule"]) return finding;
  }
  return nullptr;
}

// What the evidence of `fact` in the verdict's finding points at in the
// evidence document (an event of a log, a kernel record); null when the
// finding has no such evidence or its pointer leads nowhere.
json evidence_target(Analysis& analysis, std::string_view fact) {
  json finding = verdict_finding(analysis);
  for (auto& evidence : finding["evidence"]) {
    if (evidence["fact"] != fact || !evidence["pointer"].is_string()) continue;
    const json::json_pointer pointer(evidence["pointer"].get<std::string>());
    if (analysis.document.contains(pointer)) return analysis.document.at(pointer);
  }
  return nullptr;
}

// Whether the evidence of `fact` is the event read from line `line` of `file`.
bool points_at_line(Analysis& analysis, std::string_view fact, const fs::path& file, int line) {
  json target = evidence_target(analysis, fact);
  return target.is_object() && target["from"]["file"] == file.string() && target["from"]["line"] == line;
}

bool any_finding_blames_memory(Analysis& analysis) {
  for (auto& finding : analysis.report["findings"]) {
    const auto cause = finding["cause"].get<std::string>();
    if (cause.find("oom") != std::string::npos) return true;
  }
  return false;
}

// For failure messages: the verdict, each finding, and the log's last lines.
std::string explain(Analysis& analysis, const fs::path& log) {
  std::string text = "verdict: " + analysis.report["verdict"].dump() + "\nfindings:";
  for (auto& finding : analysis.report["findings"]) {
    text += "\n  " + finding["rule"].dump() + " " + finding["confidence"].dump() + ": " + finding["summary"].dump();
    for (auto& evidence : finding["evidence"]) text += "\n    " + evidence["fact"].dump() + " <- " + evidence["pointer"].dump();
  }
  text += "\nanalyze: " + analysis.outcome.describe();
  const std::string tail = read_text(log);
  return text + "\nthe log's end:\n" + tail.substr(tail.size() > 3000 ? tail.size() - 3000 : 0);
}

// The pid that PyTorch's DataLoader named as its killed worker, or -1.
int killed_worker_pid(const fs::path& log) {
  return pid_after(find_line(log, ") is killed by signal: Killed.").second, "DataLoader worker (pid ");
}

// A DataLoader with two workers, each caching every document it reads,
// started as `python3 train.py 2>&1 | tee OUT/train.log` in a cgroup of
// 768 MiB. The kernel kills the process with the most resident memory; a
// forked worker does not count torch's library pages its parent mapped, so
// it must outgrow the main process's ~250 MiB, which the limit leaves room for.
struct WorkerOomJob {
  KernelLogWindow kernel;  // opened before the job starts
  TempDir tmp;
  fs::path out = tmp / "out";
  fs::path log = out / "train.log";
  int worker = -1;        // the worker the DataLoader reported killed
  int first_killed = -1;  // the kernel's first OOM victim in the cgroup, when its log is readable
};

constexpr std::uint64_t kWorkerOomMiB = 768;

// Runs the job; the test stops (REQUIRE) when it did not die as intended.
void run_worker_oom(WorkerOomJob& job, const MemoryCgroupSandbox& cgroup) {
  fs::create_directories(job.out);
  // torch reports a dead worker one of two ways, whichever of its checks
  // runs first: the SIGCHLD handler's "DataLoader worker (pid N) is killed by
  // signal: Killed." or, after a queue timeout, "DataLoader worker (pid(s)
  // N) exited unexpectedly". These tests are about the first; the job runs
  // again (up to three times) when torch took the other path.
  for (int attempt = 0; attempt < 3; ++attempt) {
    const auto outcome = run(shell_in(cgroup, shell_words(plain_job("worker-oom", job.out)) + " 2>&1 | tee " +
                                                  quoted(job.log.string())),
                             kJobDeadline);
    REQUIRE_MESSAGE(outcome.status, outcome.describe());
    job.worker = killed_worker_pid(job.log);
    if (job.worker > 0 || read_text(job.log).find(") exited unexpectedly") == std::string::npos) break;
  }
  REQUIRE_MESSAGE(job.worker > 0, "the main process did not report a killed worker:\n", read_text(job.log));
  // The premise: the kernel's OOM killer, in this cgroup, killed the worker.
  if (auto killed = job.kernel.oom_killed(cgroup)) {
    REQUIRE_MESSAGE(contains(*killed, job.worker), "no kernel OOM kill of worker ", job.worker, " in ", cgroup.name());
    // Both workers grow alike: the kernel may kill both, and the DataLoader
    // reports whichever dead worker it checks first.
    job.first_killed = killed->front();
  }
}

}  // namespace

TEST_CASE("analyze real logs: a DataLoader worker OOM-killed is host-oom-dataloader from the log alone") {
  auto made = torch_sandbox(kWorkerOomMiB);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  WorkerOomJob job;
  run_worker_oom(job, *std::get<std::unique_ptr<MemoryCgroupSandbox>>(made));

  auto analysis = analyze_logs({job.out.string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(explain(analysis, job.log));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-dataloader");
  CHECK(verdict["rule"] == "dataloader-worker-killed-in-log");
  const std::string quote = "DataLoader worker (pid " + std::to_string(job.worker) + ") is killed by signal: Killed.";
  CHECK(verdict["summary"].get<std::string>().find(quote) != std::string::npos);
  const int line = find_line(job.log, quote).first;
  CHECK(points_at_line(analysis, "death.signal", job.log, line));
  CHECK(points_at_line(analysis, "death.role", job.log, line));
}

TEST_CASE("analyze real logs: the same worker's death with the kernel's log names the kernel's OOM kill") {
  auto made = torch_sandbox(kWorkerOomMiB);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  WorkerOomJob job;
  if (job.kernel.unreadable()) FTDIAG_SKIP("cannot read the kernel's log: " + *job.kernel.unreadable());
  run_worker_oom(job, *cgroup);
  // Saved outside the job's folder, as `dmesg > FILE` on the node would be.
  const auto kernel_log = job.tmp / "node-kernel.log";
  job.kernel.save(kernel_log);

  const std::string quote = "DataLoader worker (pid " + std::to_string(job.worker) + ") is killed by signal: Killed.";
  // The incident is the kernel's first kill; the DataLoader's line names it or a sibling worker it killed too.
  const std::string victim = "pid " + std::to_string(job.first_killed) + " (python3)";
  auto check = [&](Analysis& analysis) {
    REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
    INFO(explain(analysis, job.log));
    bool kernel_log_read = false;
    for (auto& host : analysis.document["hosts"]) kernel_log_read |= host["kernel"]["from"]["file"] == kernel_log.string();
    CHECK_MESSAGE(kernel_log_read, "the kernel log given was not read: ", analysis.document["hosts"].dump().substr(0, 2000));
    auto& verdict = analysis.report["verdict"];
    CHECK(verdict["cause"] == "host-oom-dataloader");
    CHECK(verdict["scope"] == "cgroup");
    const auto summary = verdict["summary"].get<std::string>();
    CHECK(summary.find("The kernel's OOM killer killed " + victim) != std::string::npos);
    CHECK(summary.find(quote) != std::string::npos);
    // The kernel's evidence: its record of killing the worker, in the file given.
    json record = evidence_target(analysis, "oom.killed_by_kernel");
    CHECK_MESSAGE(record.is_object(), "oom.killed_by_kernel does not point at a kernel record");
    if (record.is_object()) {
      CHECK(record["kind"] == "oom-kill");
      CHECK(record["pid"] == job.first_killed);
      CHECK(record["from"]["file"] == kernel_log.string());
    }
  };
  // Both ways of handing a node's kernel log over: one more path, or --kernel-log.
  for (const std::vector<std::string>& args : {std::vector<std::string>{job.out.string(), kernel_log.string()},
                                               std::vector<std::string>{job.out.string(), "--kernel-log", kernel_log.string()}}) {
    CAPTURE(args[1]);
    auto analysis = analyze_logs(args);
    check(analysis);
  }
}

TEST_CASE("analyze real logs: a bash script's trainer OOM-killed while saving a checkpoint is host-oom-checkpoint-save") {
  // One process: torch and training take ~250 MiB, the save's state dict
  // 32 MiB more per layer until the 400 MiB limit.
  auto made = torch_sandbox(400);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto out = tmp / "out";
  const auto log = out / "train.log";
  fs::create_directories(out);
  // A script file: bash reports a command of it that a signal ended
  // ("finetune.sh: line 3: PID Killed ..."), which `bash -c` does not for its last command.
  const auto script = tmp / "finetune.sh";
  write_text(script, "#!/bin/bash\n# Fine-tune, then say how it went.\n" + shell_words(plain_job("save-oom", out)) +
                         "\necho \"training exited with $?\"\n");
  const KernelLogWindow kernel;
  const auto outcome = run(shell_in(*cgroup, "bash " + quoted(script.string()) + " > " + quoted(log.string()) + " 2>&1"),
                           kJobDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(0), outcome.describe());
  const auto [killed_line, killed_text] = find_line(log, "finetune.sh: line 3: ");
  REQUIRE_MESSAGE(killed_text.find(" Killed ") != std::string::npos, "bash reported no killed command:\n", read_text(log));
  // atoi skips the spaces bash pads a short pid with.
  const int trainer = std::atoi(killed_text.substr(killed_text.find("line 3:") + 7).c_str());
  if (auto killed = kernel.oom_killed(*cgroup)) {
    REQUIRE_MESSAGE(contains(*killed, trainer), "no kernel OOM kill of the trainer ", trainer, " in ", cgroup->name());
  }
  const std::string save = "Saving model checkpoint to " + (out / "checkpoint-10").string();
  REQUIRE_MESSAGE(find_line(log, save).first > 0, read_text(log));
  // The Trainer's way: the save goes to tmp-checkpoint-10, renamed once whole.
  CHECK(fs::exists(out / "tmp-checkpoint-10"));
  CHECK_FALSE(fs::exists(out / "checkpoint-10"));

  auto analysis = analyze_logs({out.string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(explain(analysis, log));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["rule"] == "sigkill-while-saving-in-log");
  CHECK(verdict["summary"].get<std::string>().find("(\"" + save + "\")") != std::string::npos);
  CHECK(points_at_line(analysis, "death.signal", log, killed_line));
  CHECK(verdict_finding(analysis)["supporting"].dump().find("tmp-checkpoint-10") != std::string::npos);
}

TEST_CASE("analyze real logs: torchrun's rank OOM-killed while saving a checkpoint is host-oom-checkpoint-save") {
  // The launcher and two ranks hold ~400 MiB; both ranks gather the save's
  // state dict, 32 MiB more per layer each, until the 700 MiB limit.
  auto made = torch_sandbox(700);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto out = tmp / "out";
  const auto log = out / "train.log";
  fs::create_directories(out);
  const KernelLogWindow kernel;
  const auto outcome =
      run(shell_in(*cgroup, shell_words(torchrun_job("save-oom", out)) + " > " + quoted(log.string()) + " 2>&1"), kJobDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  const auto [failed_line, failed_text] = find_line(log, "failed (exitcode: -9) local_rank: ");
  REQUIRE_MESSAGE(failed_line > 0, "torchrun reported no rank killed by SIGKILL:\n", read_text(log));
  const int rank = pid_after(failed_text, "(pid: ");
  if (auto killed = kernel.oom_killed(*cgroup)) {
    REQUIRE_MESSAGE(contains(*killed, rank), "no kernel OOM kill of the rank ", rank, " in ", cgroup->name());
  }
  const std::string save = "Saving model checkpoint to " + (out / "checkpoint-10").string();

  auto analysis = analyze_logs({out.string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(explain(analysis, log));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "host-oom-checkpoint-save");
  CHECK(verdict["rule"] == "sigkill-while-saving-in-log");
  CHECK(verdict["summary"].get<std::string>().find("(\"" + save + "\")") != std::string::npos);
  CHECK(points_at_line(analysis, "death.signal", log, failed_line));
}

TEST_CASE("analyze real logs: a rank segfaulting under torchrun is framework-bug-segfault and no memory cause") {
  // Far from the limit: nothing but the fault ends this job.
  auto made = torch_sandbox(1024);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto out = tmp / "out";
  const auto log = out / "train.log";
  fs::create_directories(out);
  const KernelLogWindow kernel;
  const auto outcome = run(shell_in(*cgroup, "PYTHONFAULTHANDLER=1 " + shell_words(torchrun_job("segfault", out)) + " > " +
                                                 quoted(log.string()) + " 2>&1"),
                           kJobDeadline);
  REQUIRE_MESSAGE(outcome.exited_with(1), outcome.describe());
  const int fault_line = find_line(log, "Fatal Python error: Segmentation fault").first;
  REQUIRE_MESSAGE(fault_line > 0, "faulthandler reported no segfault:\n", read_text(log));
  // torchrun's summary names the rank's death by SIGSEGV.
  REQUIRE_MESSAGE(find_line(log, "exitcode  : -11 (pid: ").first > 0, read_text(log));
  if (auto killed = kernel.oom_killed(*cgroup)) REQUIRE_MESSAGE(killed->empty(), "the kernel OOM-killed in this job too");

  auto analysis = analyze_logs({out.string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(explain(analysis, log));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "framework-bug-segfault");
  CHECK(verdict["summary"].get<std::string>().find("\"Fatal Python error: Segmentation fault\"") != std::string::npos);
  CHECK(points_at_line(analysis, "death.signal", log, fault_line));
  CHECK_FALSE(any_finding_blames_memory(analysis));
}

TEST_CASE("analyze real logs: torchrun hung up from outside is external-kill") {
  // Far from the limit: nothing but the hang-up ends this job.
  auto made = torch_sandbox(1024);
  if (auto* why_not = std::get_if<std::string>(&made)) FTDIAG_SKIP(*why_not);
  const auto& cgroup = std::get<std::unique_ptr<MemoryCgroupSandbox>>(made);
  TempDir tmp;
  const auto out = tmp / "out";
  const auto log = out / "train.log";
  fs::create_directories(out);
  const KernelLogWindow kernel;
  // exec: the process the test holds is torchrun itself, the one a closing
  // terminal or session would hang up.
  Process torchrun(shell_in(*cgroup, "exec " + shell_words(torchrun_job("wait", out)) + " > " + quoted(log.string()) + " 2>&1"));
  const bool training = wait_until(
      [&] {
        const auto text = read_text(log);
        return text.find("rank 1 pid ") != std::string::npos && text.find("{'loss': ") != std::string::npos;
      },
      90);
  REQUIRE_MESSAGE(training, "the ranks did not start training:\n", read_text(log));
  torchrun.send(SIGHUP);
  const auto status = torchrun.finish(60);
  REQUIRE_MESSAGE(status, "torchrun still ran a minute after SIGHUP:\n", read_text(log));
  const int signalled_line = find_line(log, "Received 1 death signal, shutting down workers").first;
  REQUIRE_MESSAGE(signalled_line > 0, "torchrun did not report the hang-up:\n", read_text(log));
  if (auto killed = kernel.oom_killed(*cgroup)) REQUIRE_MESSAGE(killed->empty(), "the kernel OOM-killed in this job too");

  auto analysis = analyze_logs({out.string()});
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  INFO(explain(analysis, log));
  auto& verdict = analysis.report["verdict"];
  CHECK(verdict["cause"] == "external-kill");
  CHECK(verdict["rule"] == "launcher-signalled-in-log");
  CHECK(verdict["summary"].get<std::string>().find("Received 1 death signal, shutting down workers\"") != std::string::npos);
  CHECK(points_at_line(analysis, "log.launcher_signalled", log, signalled_line));
  CHECK_FALSE(any_finding_blames_memory(analysis));
}

}  // namespace ftdiag::itest
