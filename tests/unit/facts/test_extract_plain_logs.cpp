// Facts from plain logs alone (`analyze` of a folder a job left without
// ftdiag): the incident, the phase by line numbers, the role the printing
// line names, the last lines.
#include <csignal>
#include <tuple>

#include <doctest/doctest.h>

#include "facts/extract.h"
#include "unit/facts/evidence_builder.h"
#include "unit/parse/logs/line_event_testing.h"

using namespace ftdiag;
using namespace ftdiag::evidence;
using ftdiag::facts::testing::value_of;

namespace {

LogEvent event_at(std::string kind, std::uint64_t line, std::string text, std::optional<int> signal = std::nullopt,
                  std::optional<double> time = std::nullopt) {
  LogEvent e{.kind = std::move(kind), .time = time, .from = Provenance{.collector = "log-files", .file = "train.log", .line = line},
             .text = std::move(text), .signal = signal};
  e.means = ftdiag::parse::testing::project_table().means_of(e.kind);  // as the log scan stamps it
  return e;
}

LogFileEvidence console(std::vector<LogEvent> events, std::vector<LogPhase> phases, std::uint64_t lines) {
  LogFileEvidence log;
  log.from = Provenance{.collector = "log-files", .file = "train.log"};
  log.line_count = lines;
  log.events = std::move(events);
  log.phases = std::move(phases);
  return log;
}

EvidenceDocument document_with(std::vector<LogFileEvidence> logs) {
  EvidenceDocument document;
  auto& host = host_named(document, "");
  host.logs = std::move(logs);
  return document;
}

}  // namespace

TEST_CASE("plain logs: the launcher's -9 after a loading line is a death in the model-load phase") {
  auto log = console({event_at("launcher-teardown", 2, "Killing subprocess 9439", SIGKILL),
                      event_at("rank-failed", 7, "exits with return code = -9", SIGKILL)},
                     {LogPhase{.phase = "model-load", .first_line_number = 1, .last_line_number = 1, .lines = 1,
                               .first_line = "Initializing language decoder from ./7b/"}},
                     7);
  const auto facts = facts::extract_facts(document_with({log}));
  // The teardown line names a survivor the launcher killed: not the incident.
  CHECK(value_of<std::string>(facts, "death.source") == "log");
  CHECK(facts.get("death.signal").pointer == "/hosts/0/logs/0/events/1");
  CHECK(value_of<std::string>(facts, "death.role") == "rank");
  CHECK(value_of<bool>(facts, "job.failed"));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "model-load");
  CHECK(value_of<std::string>(facts, "phase.source") == "log");
  CHECK(value_of<std::int64_t>(facts, "phase.lines_to_death") == 6);
  CHECK(facts.get("phase.at_death").pointer == "/hosts/0/logs/0/phases/0/phase");
}

TEST_CASE("plain logs: only phases before the death's line count") {
  auto log = console({event_at("rank-failed", 20, "failed (exitcode: -9) local_rank: 3 (pid: 41)", SIGKILL)},
                     {LogPhase{.phase = "training", .first_line_number = 5, .last_line_number = 18, .lines = 14, .first_line = "{'loss': 1.0}"},
                      LogPhase{.phase = "checkpoint-save", .first_line_number = 30, .last_line_number = 30, .lines = 1,
                               .first_line = "Saving model checkpoint to out/checkpoint-500"}},
                     40);
  const auto facts = facts::extract_facts(document_with({log}));
  CHECK(value_of<std::string>(facts, "phase.at_death") == "training");
  CHECK(value_of<std::int64_t>(facts, "phase.lines_to_death") == 2);
  CHECK(value_of<std::int64_t>(facts, "phase.checkpoint_saves_before") == 0);
}

TEST_CASE("plain logs: of ranks dying within the clock skew, a fault is the first failure, not the launcher's SIGTERM") {
  auto other = console({event_at("rank-failed", 3, "failed (exitcode: -15) local_rank: 0 (pid: 40)", SIGTERM, 1000.0)}, {}, 5);
  other.from.file = "node1.log";
  auto first = console({event_at("rank-failed", 9, "failed (exitcode: -11) local_rank: 1 (pid: 41)", SIGSEGV, 1000.8)}, {}, 9);
  const auto facts = facts::extract_facts(document_with({other, first}));
  CHECK(value_of<std::int64_t>(facts, "death.signal") == SIGSEGV);
  CHECK(facts.get("death.signal").pointer == "/hosts/0/logs/1/events/0");
}

TEST_CASE("plain logs: a DataLoader's line names the worker the kernel killed") {
  auto document = document_with({console({event_at("worker-died", 1, "RuntimeError: DataLoader worker (pid 629) is killed by signal: Killed.", SIGKILL)}, {}, 1)});
  document.hosts[0].logs[0].events[0].pid = 629;
  document.hosts[0].logs[0].events[0].details["source"] = "pytorch-dataloader";
  const auto facts = facts::extract_facts(document);
  CHECK(value_of<std::string>(facts, "death.role") == "dataloader-worker");
  CHECK(value_of<std::int64_t>(facts, "death.pid") == 629);
}

namespace {

LogEvent kernel_oom_kill(int pid, double time, std::string memcg, std::string comm = "python3") {
  LogEvent kill{.kind = "oom-kill", .time = time, .from = Provenance{.collector = "kernel-log", .file = "node-kernel.log"},
                .text = "Memory cgroup out of memory: Killed process " + std::to_string(pid), .pid = pid, .signal = SIGKILL};
  kill.details = {{"oom_memcg", std::move(memcg)}, {"comm", std::move(comm)}, {"constraint", "CONSTRAINT_MEMCG"}};
  return kill;
}

// The DataLoader's report that it lost worker 630, beside the kernel's kills.
EvidenceDocument worker_630_named_beside(std::vector<LogEvent> kills) {
  auto document = document_with({console({event_at("worker-died", 1, "RuntimeError: DataLoader worker (pid 630) is killed by signal: Killed.", SIGKILL)}, {}, 1)});
  document.hosts[0].logs[0].events[0].pid = 630;
  document.hosts[0].logs[0].events[0].details["source"] = "pytorch-dataloader";
  KernelLogEvidence kernel;
  kernel.records = std::move(kills);
  document.hosts[0].kernel = kernel;
  return document;
}

}  // namespace

TEST_CASE("plain logs: two workers killed in one OOM episode: the one the DataLoader names makes the first a worker too") {
  const auto facts = facts::extract_facts(worker_630_named_beside({kernel_oom_kill(629, 100.0, "/job"), kernel_oom_kill(630, 100.4, "/job")}));
  // The first kill is the incident; the DataLoader named the second.
  CHECK(value_of<std::int64_t>(facts, "death.pid") == 629);
  CHECK(value_of<std::string>(facts, "death.role") == "dataloader-worker");
  const auto because = value_of<std::string>(facts, "death.role_because");
  CHECK(because.find("the kernel killed pid 630 too, 0.4 s later in the same cgroup") != std::string::npos);
  CHECK(facts.get("death.role").pointer == "/hosts/0/logs/0/events/0");
}

TEST_CASE("plain logs: a kill in another cgroup, or of another command, does not lend its role") {
  for (const auto& sibling : {kernel_oom_kill(630, 100.4, "/other-job"), kernel_oom_kill(630, 100.4, "/job", "bash")}) {
    const auto facts = facts::extract_facts(worker_630_named_beside({kernel_oom_kill(629, 100.0, "/job"), sibling}));
    CAPTURE(sibling.details.at("oom_memcg"));
    CHECK(value_of<std::int64_t>(facts, "death.pid") == 629);
    CHECK_FALSE(facts.get("death.role").value.has_value());
  }
}

TEST_CASE("plain logs: the worker the DataLoader names, killed in an episode of its own, is the death itself") {
  const auto facts = facts::extract_facts(worker_630_named_beside({kernel_oom_kill(629, 100.0, "/job"), kernel_oom_kill(630, 400.0, "/job")}));
  CHECK(value_of<std::int64_t>(facts, "death.pid") == 630);
  CHECK(value_of<std::string>(facts, "oom.matched_by") == "pid 630, the pid the log reports dying");
  CHECK(value_of<std::string>(facts, "kernel.other_oom_victims") == "pid 629 (python3) 5 min before");
}

TEST_CASE("plain logs: a saved kernel log with no wall time places the episode by the printk clock") {
  std::vector<LogEvent> kills{kernel_oom_kill(629, 0, "/job"), kernel_oom_kill(630, 0, "/job")};
  for (auto& record : kills) record.time.reset();
  kills[0].details["monotonic_us"] = "5000000";
  kills[1].details["monotonic_us"] = "5250000";
  const auto facts = facts::extract_facts(worker_630_named_beside(std::move(kills)));
  CHECK(value_of<std::string>(facts, "death.role") == "dataloader-worker");
  CHECK(value_of<std::string>(facts, "death.role_because").find("0.2 s later") != std::string::npos);
}

TEST_CASE("plain logs: an exception without any signal still says the job failed, and the tail gives it") {
  auto log = console({}, {}, 4);
  log.tail = {LogLine{1, "Traceback (most recent call last):"}, LogLine{2, "  File \"train.py\", line 3, in <module>"},
              LogLine{3, "    loss.backward()"}, LogLine{4, "torch.cuda.OutOfMemoryError: CUDA out of memory."}};
  const auto facts = facts::extract_facts(document_with({log}));
  CHECK_FALSE(facts.get("death.signal").value);
  CHECK(value_of<bool>(facts, "job.failed"));
  CHECK(value_of<std::string>(facts, "console.exception") == "torch.cuda.OutOfMemoryError: CUDA out of memory.");
  CHECK(value_of<std::int64_t>(facts, "console.lines") == 4);
}

TEST_CASE("plain logs: a log with nothing recognised says nothing failed") {
  const auto facts = facts::extract_facts(document_with({console({}, {}, 3)}));
  CHECK_FALSE(facts.get("job.failed").value);
  CHECK_FALSE(facts.get("phase.at_death").value);
}

TEST_CASE("plain logs: a kill read from a report cut short and from the whole report is one kill, with the whole one's numbers") {
  LogEvent cut = kernel_oom_kill(629, 100.0, "/job");
  cut.text = "oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/job,task=python3,pid=629,uid=0";
  cut.details["report"] = "summary only";
  LogEvent whole = kernel_oom_kill(629, 100.0, "/job");
  whole.details["anon_rss_bytes"] = "1048576";
  LogEvent earlier_reuse = kernel_oom_kill(629, 10.0, "/job");  // the pid in an older run: another kill
  earlier_reuse.text += " (older)";
  for (const bool cut_first : {true, false}) {
    auto document = document_with({console({event_at("rank-failed", 1, "exits with return code = -9", SIGKILL)}, {}, 1)});
    KernelLogEvidence kernel;
    kernel.records = cut_first ? std::vector{earlier_reuse, cut, whole} : std::vector{earlier_reuse, whole, cut};
    document.hosts[0].kernel = kernel;
    const auto facts = facts::extract_facts(document);
    CAPTURE(cut_first);
    CHECK(value_of<std::int64_t>(facts, "kernel.oom_kills") == 2);
    CHECK(value_of<std::int64_t>(facts, "death.pid") == 629);
    CHECK(facts.get("death.pid").pointer == (cut_first ? "/hosts/0/kernel/records/2/pid" : "/hosts/0/kernel/records/1/pid"));
  }
}

TEST_CASE("plain logs: an OOM kill whose time cannot be compared with a logged death is unplaced, neither the job's nor not") {
  auto document = document_with({console({event_at("rank-failed", 1, "exits with return code = -9", SIGKILL, 500.0)}, {}, 1)});
  LogEvent kill = kernel_oom_kill(98765, 0, "", "python3");
  kill.time.reset();  // boot-relative stamps, no boot time
  kill.details.erase("oom_memcg");
  kill.details["scope"] = "node";
  KernelLogEvidence kernel;
  kernel.records = {kill};
  document.hosts[0].kernel = kernel;
  const auto facts = facts::extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "kernel.unplaced_oom_kills") == 1);
  CHECK(value_of<std::string>(facts, "kernel.unplaced_oom_victim") == "pid 98765 (python3)");
  CHECK(value_of<std::string>(facts, "kernel.unplaced_oom_scope") == "node");
  // Not "false": rules that need the kernel's word stay undecided.
  CHECK_FALSE(facts.get("oom.killed_by_kernel").value.has_value());

  // With a time on both, the kill is placed (or not) by the time: nothing is unplaced.
  kernel.records[0].time = 400.0;
  document.hosts[0].kernel = kernel;
  const auto placed = facts::extract_facts(document);
  CHECK(value_of<std::int64_t>(placed, "kernel.unplaced_oom_kills") == 0);
}

TEST_CASE("plain logs: the step a silent death came after, and whether the Trainer saves at it") {
  auto log = console({event_at("rank-failed", 4, "failed (exitcode: -9) local_rank: 0 (pid: 1760809)", SIGKILL)},
                     {LogPhase{.phase = "training", .first_line_number = 1, .last_line_number = 2, .lines = 2, .first_line = "{'loss': 1.2}"}}, 4);
  log.tail = {LogLine{1, "{'loss': 1.2, 'global_step': 500}"}, LogLine{2, " 50%|#####     | 500/1000 [10:00<10:00,  1.2s/it]"},
              LogLine{3, "Sending process 1760810 closing signal SIGTERM"}, LogLine{4, "failed (exitcode: -9) local_rank: 0"}};
  auto document = document_with({log});
  document.hosts[0].configs.push_back(ConfigEvidence{.from = {.collector = "configs", .file = "run.sh"}, .kind = "launch-command",
                                                     .settings = {{"launcher", "torchrun"}, {"args.save_steps", "250"}}});
  auto facts = facts::extract_facts(document);
  CHECK(value_of<std::int64_t>(facts, "phase.steps_before_death") == 500);
  CHECK(value_of<bool>(facts, "phase.after_save_step") == true);
  document.hosts[0].configs[0].settings["args.save_steps"] = "300";
  facts = facts::extract_facts(document);
  CHECK(value_of<bool>(facts, "phase.after_save_step") == false);
  // Saving by epoch, a step count says nothing of the save.
  document.hosts[0].configs[0].settings["args.save_strategy"] = "epoch";
  document.hosts[0].configs[0].settings["args.save_steps"] = "250";
  facts = facts::extract_facts(document);
  CHECK_FALSE(facts.get("phase.after_save_step").value);
}

TEST_CASE("plain logs: a native crash while importlib loaded an extension names the import, not a crash elsewhere") {
  auto log = console({event_at("native-crash", 2, "Fatal Python error: Segmentation fault", SIGSEGV)}, {}, 9);
  log.tail = {LogLine{1, "TensorFlow version 2.0.0 available."},
              LogLine{2, "Fatal Python error: Segmentation fault"},
              LogLine{3, ""},
              LogLine{4, "Current thread 0x00007f1423b1b740 (most recent call first):"},
              LogLine{5, "  File \"<frozen importlib._bootstrap>\", line 205 in _call_with_frames_removed"},
              LogLine{6, "  File \"<frozen importlib._bootstrap_external>\", line 922 in create_module"},
              LogLine{7, "  File \"<frozen importlib._bootstrap>\", line 560 in module_from_spec"},
              LogLine{8, "  File \"/env/site-packages/torch/__init__.py\", line 81 in <module>"},
              LogLine{9, "  File \"train.py\", line 3 in <module>"}};
  auto facts = facts::extract_facts(document_with({log}));
  CHECK(value_of<std::string>(facts, "log.crash_loading_module") == "/env/site-packages/torch/__init__.py, line 81 (<module>)");
  // A crash in the job's own code is no loading.
  log.tail = {LogLine{1, "Fatal Python error: Segmentation fault"}, LogLine{2, ""},
              LogLine{3, "Current thread 0x00007f1423b1b740 (most recent call first):"},
              LogLine{4, "  File \"/env/site-packages/torch/nn/functional.py\", line 1200 in linear"},
              LogLine{5, "  File \"train.py\", line 30 in step"}};
  facts = facts::extract_facts(document_with({log}));
  CHECK_FALSE(facts.get("log.crash_loading_module").value);
}

namespace {

// A pasted line, read by the project's table as the log scan reads it.
LogEvent read_line(std::uint64_t line, const std::string& text) {
  const auto matched = ftdiag::parse::testing::project_table().match(text);
  REQUIRE_MESSAGE(matched, text);
  LogEvent e = event_at(matched->kind, line, text, matched->signal);
  e.pid = matched->pid;
  for (const auto& [name, value] : matched->details) e.details[name] = value;
  return e;
}

}  // namespace

TEST_CASE("plain logs: UCX's frames without their signal line name the innermost frame; under it, the crash line speaks") {
  // A paste that starts at frame 2 of UCX's backtrace: its fatal-error handler printed it.
  const std::vector<std::string> frames = {
      " 2 0x0000000000042b60 ompi_dpm_group_is_dyn()  /build/ompi/dpm/dpm.c:1268",
      " 3 0x0000000000034ef3 ompi_comm_create()  /build/ompi/communicator/comm.c:344",
      " 8 0x0000000004f1ea87 c10d::ProcessGroupMPI::createProcessGroupMPI()  ???:0"};
  std::vector<LogEvent> events;
  for (std::size_t i = 0; i < frames.size(); ++i) events.push_back(read_line(10 + i, frames[i]));
  auto facts = facts::extract_facts(document_with({console(events, {}, 12)}));
  CHECK(value_of<std::string>(facts, "log.fatal_error_backtrace") == "ompi_dpm_group_is_dyn() at dpm.c:1268");
  CHECK(value_of<std::int64_t>(facts, "log.native_frames") == 3);

  events.insert(events.begin(), read_line(9, "[node1:4121 :0:4121] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x10)"));
  facts = facts::extract_facts(document_with({console(events, {}, 12)}));
  CHECK_FALSE(facts.get("log.fatal_error_backtrace").value);
  CHECK(value_of<std::int64_t>(facts, "log.native_crash_signal") == 11);

  // c10's frames come with an exception (a watchdog's timeout), not a crash.
  const auto c10 = read_line(4, "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout() + 0x282 (0x7af8697cc772 in /venv/lib/libtorch_cuda.so)");
  facts = facts::extract_facts(document_with({console({c10}, {}, 4)}));
  CHECK_FALSE(facts.get("log.fatal_error_backtrace").value);
}
