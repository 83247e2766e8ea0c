#include <doctest/doctest.h>

#include <csignal>
#include <fstream>
#include <sstream>

#include "evidence/document_json.h"
#include "evidence/run_builder.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

namespace {

RunEvidence small_run() {
  RunBuilder builder;
  RunStarted start;
  start.time = 10;
  start.host = "n1";
  start.job_pid = 7;
  start.journal_format = kJournalFormat;
  start.mechanisms.emplace("netlink", Missing{MissingReason::permission_denied, "no CAP_NET_ADMIN"});
  builder.add(start);
  builder.add(ProcessSeen{10.1, 7, 1, {7}, {"a"}, "a", 1u, "spawn"});
  MemorySample s;
  s.time = 11;
  s.node.mem_total = 100u;
  s.node.mem_available = 50u;
  s.processes.push_back(ProcessMemory{7, 10u, 5u, 5u, 0u, 10u, 0u});
  builder.add(s);
  builder.add(ProcessDied{12, 7, ExitStatus::killed(SIGSEGV, true), {"waitpid"}});
  builder.add(RunEnded{12.1, ExitStatus::killed(SIGSEGV, true)});
  RunEvidence run = std::move(builder).finish("n1-pid1");
  run.console.tail.push_back({11.5, 'e', "Segmentation fault"});
  run.console.line_count = 1;
  run.console.phases.push_back({"checkpoint-save", 11.0, 11.2, 3, "Saving model checkpoint to out/checkpoint-5"});
  return run;
}

nlohmann::json load_fixture(const char* name) {
  std::ifstream in(std::string(FTDIAG_FIXTURES_DIR) + "/evidence/" + name);
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str());
}

}  // namespace

TEST_CASE("the evidence document reads back what it writes, every source included") {
  EvidenceDocument document;
  document.generator = "ftdiag test";
  document.sources = {"/tmp/x", "/var/log/kern.log"};
  HostEvidence host{.name = "n1"};
  host.runs.push_back(small_run());
  KernelLogEvidence kernel;
  kernel.from = {.collector = "kernel-log", .file = "/dev/kmsg"};
  kernel.boot_time = 1000.5;
  kernel.records.push_back(LogEvent{.kind = "oom-kill",
                                    .time = 11.9,
                                    .from = {.collector = "kernel-log", .file = "/dev/kmsg", .line = 42},
                                    .text = "Memory cgroup out of memory: Killed process 7 (a)",
                                    .pid = 7,
                                    .signal = SIGKILL,
                                    .details = {{"constraint", "CONSTRAINT_MEMCG"}}});
  host.kernel = kernel;
  host.environment.emplace("cuda.driver_version", std::string("12.1"));
  host.environment.emplace("torch.cuda_build", Missing{MissingReason::not_present, "torch is not installed"});
  // A log line without a timestamp: its place is its file and line.
  host.logs.push_back(LogFileEvidence{.from = {.collector = "logs", .file = "train.log"},
                                      .line_count = 300,
                                      .events = {LogEvent{.kind = "process-exit",
                                                          .from = {.collector = "logs", .file = "train.log", .line = 297},
                                                          .text = "exits with return code = -9",
                                                          .signal = SIGKILL,
                                                          .rank = 1}}});
  host.configs.push_back(ConfigEvidence{.from = {.file = "ds_z2.json"}, .kind = "deepspeed",
                                        .settings = {{"zero_optimization.stage", "2"}}});
  host.checkpoints.push_back(CheckpointEvidence{.from = {.file = "out/checkpoint-5"}, .step = 5, .files = 3,
                                                .bytes = 1 << 20, .complete = false});
  host.crashes.push_back(CrashEvidence{.pid = 7, .signal = SIGSEGV, .fault_address = 0x10,
                                       .frames = {StackFrame{.address = 0x401000, .object = "/usr/bin/a",
                                                             .offset = 0x1000, .function = "main", .file = "a.c",
                                                             .line = 12, .language = "native"}}});
  document.hosts.push_back(std::move(host));
  document.collectors.push_back(CollectorReport{.name = "journal", .section = "hosts[].runs", .sources = {"/tmp/x"}});
  document.collectors.push_back(CollectorReport{.name = "kernel-log", .section = "hosts[].kernel",
                                                .outcome = Missing{MissingReason::permission_denied, "dmesg_restrict"}});

  auto j = document_to_json(document);
  CHECK(j["schema_version"] == kSchemaVersion);
  CHECK(j["hosts"][0]["runs"][0]["complete"] == true);
  CHECK(j["hosts"][0]["logs"][0]["events"][0]["time"].is_null());
  CHECK(j["hosts"][0]["environment"]["torch.cuda_build"]["missing"]["reason"] == "not-present");
  auto back = document_from_json(nlohmann::json::parse(j.dump()));
  REQUIRE_MESSAGE(back.has_value(), back.missing().detail);
  CHECK(back.value() == document);
}

TEST_CASE("a schema version 1 document still loads, its runs grouped by host") {
  auto v1 = load_fixture("schema-v1.json");
  REQUIRE(v1["schema_version"] == 1);
  auto document = document_from_json(v1);
  REQUIRE_MESSAGE(document.has_value(), document.missing().detail);
  CHECK(document->schema_version == kSchemaVersion);
  REQUIRE(document->hosts.size() == 1);
  CHECK(document->hosts[0].name == "vm");
  REQUIRE(document->hosts[0].runs.size() == v1["runs"].size());
  CHECK(document->sources == std::vector<std::string>{v1["source"].get<std::string>()});
  const auto& run = document->hosts[0].runs[0];
  CHECK(run.started.host == "vm");
  // Format 1 journals did not say their format.
  CHECK_FALSE(run.started.journal_format);
  CHECK(run.processes.size() == v1["runs"][0]["processes"].size());
  // What version 1 could not hold is missing, with the reason.
  REQUIRE_FALSE(document->hosts[0].kernel.has_value());
  CHECK(document->hosts[0].kernel.missing().detail.find("schema version 1") != std::string::npos);
  // A cgroup reading of version 1 has no under_oom: missing, not false.
  REQUIRE(run.memory.cgroup_last);
  CHECK_FALSE(run.memory.cgroup_last->under_oom.has_value());
}

TEST_CASE("documents of another schema version or shape are refused clearly") {
  auto future = document_from_json(nlohmann::json{{"schema_version", kSchemaVersion + 1}});
  REQUIRE_FALSE(future.has_value());
  CHECK(future.missing().reason == MissingReason::unsupported);
  auto garbage = document_from_json(nlohmann::json::parse(R"({"schema_version":1,"runs":"no"})"));
  REQUIRE_FALSE(garbage.has_value());
  CHECK(garbage.missing().reason == MissingReason::unparseable);
  auto wrong_type = document_from_json(nlohmann::json::parse(R"({"schema_version":2,"hosts":[{"runs":[{"directory":1}]}]})"));
  REQUIRE_FALSE(wrong_type.has_value());
  CHECK(wrong_type.missing().detail.find("directory") != std::string::npos);
  CHECK_FALSE(document_from_json(nlohmann::json::array()).has_value());
}

TEST_CASE("a schema version 2 document still loads, whether its cgroup peaks were reset is missing, naming the version") {
  auto v2 = load_fixture("schema-v2.json");
  REQUIRE(v2["schema_version"] == 2);
  auto document = document_from_json(v2);
  REQUIRE_MESSAGE(document.has_value(), document.missing().detail);
  CHECK(document->schema_version == kSchemaVersion);
  REQUIRE(document->hosts.size() == 1);
  const auto& run = document->hosts[0].runs.at(0);
  CHECK(run.started.journal_format == 2);
  REQUIRE(run.memory.cgroup_last);
  REQUIRE_FALSE(run.memory.cgroup_last->peak_reset.has_value());
  CHECK(run.memory.cgroup_last->peak_reset.missing().detail.find("schema version 2") != std::string::npos);
  // It reads back what it writes, as version 3.
  auto again = document_from_json(document_to_json(document.value()));
  REQUIRE(again.has_value());
  CHECK(again.value() == document.value());
}

TEST_CASE("a schema version 9 document's line events learn what their kinds mean; the kernel's records stay without") {
  nlohmann::json v9 = {{"schema_version", 9}, {"generator", "ftdiag 0.1.0"}, {"sources", nlohmann::json::array()},
                       {"hosts", nlohmann::json::array({{{"name", ""},
                                                         {"runs", nlohmann::json::array()},
                                                         {"logs", nlohmann::json::array({{{"from", {{"collector", "log-files"}}},
                                                                                          {"events", nlohmann::json::array({
                                                                                              {{"kind", "launcher-teardown"}},
                                                                                              {{"kind", "rank-failed"}},
                                                                                              {{"kind", "host-memory-usage"}}})}}})}}})}};
  auto document = document_from_json(v9);
  REQUIRE_MESSAGE(document.has_value(), document.missing().detail);
  const auto& events = document->hosts.at(0).logs.at(0).events;
  REQUIRE(events.size() == 3);
  CHECK(events[0].means == "teardown");
  CHECK(events[1].means == "failure");
  CHECK(events[2].means == "pressure");
  CHECK(document->schema_version == kSchemaVersion);
}
