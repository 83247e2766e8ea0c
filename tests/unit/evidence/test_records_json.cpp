#include <doctest/doctest.h>

#include <csignal>

#include "evidence/records_json.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

namespace {

JournalRecord round_trip(const JournalRecord& record) {
  auto text = record_to_json(record).dump();
  auto parsed = record_from_json(nlohmann::json::parse(text));
  REQUIRE(parsed.has_value());
  return parsed.value();
}

}  // namespace

TEST_CASE("exit statuses decode wait statuses the way a shell does") {
  CHECK(ExitStatus::from_wait_status(3 << 8) == ExitStatus::exited(3));
  CHECK(ExitStatus::from_wait_status(SIGKILL) == ExitStatus::killed(SIGKILL));
  CHECK(ExitStatus::from_wait_status(SIGSEGV | 0x80) == ExitStatus::killed(SIGSEGV, true));
  CHECK(ExitStatus::killed(SIGKILL).launcher_code() == -9);
  CHECK(ExitStatus::exited(255).launcher_code() == 255);
  CHECK(ExitStatus::killed(SIGSEGV, true).describe() == "killed by SIGSEGV (core dumped)");
  CHECK(signal_name(SIGBUS) == "SIGBUS");
}

TEST_CASE("every journal record reads back what it wrote") {
  RunStarted run;
  run.time = 1764405600.25;
  run.host = "node01";
  run.rank = 3;
  run.argv = {"deepspeed", "train.py", "--deepspeed", "ds z2.json"};
  run.job_pid = 4242;
  run.mechanisms.emplace("netlink", true);
  run.mechanisms.emplace("oom-protection", Missing{MissingReason::permission_denied, "needs CAP_SYS_RESOURCE"});
  CHECK(round_trip(run) == JournalRecord(run));

  ProcessSeen seen{1.5, 4243, 4242, {4243, 7}, {"python", "-m", "x"}, "python", 12345u, "netlink-fork"};
  CHECK(round_trip(seen) == JournalRecord(seen));

  ProcessDied died{2.5, 4243, ExitStatus::killed(SIGKILL), {"netlink", "waitpid"}};
  CHECK(round_trip(died) == JournalRecord(died));
  ProcessDied unknown{2.5, 4244, Missing{MissingReason::not_present, "vanished"}, {"proc-scan"}};
  CHECK(round_trip(unknown) == JournalRecord(unknown));

  MemorySample sample;
  sample.time = 3.0;
  sample.node.mem_total = 64ull << 30;
  sample.node.mem_available = 1ull << 30;
  CgroupMemory cgroup;
  cgroup.version = 1;
  cgroup.path = "/jobs/a";
  cgroup.usage = 100u;
  cgroup.limit = std::optional<Bytes>();  // unlimited
  cgroup.oom_kill = 1u;
  sample.cgroup = cgroup;
  sample.dev_shm = FilesystemUsage{10, 5, 5};
  sample.processes.push_back(ProcessMemory{4243, 100u, 60u, 40u, 0u, 120u, Missing{}});
  CHECK(round_trip(sample) == JournalRecord(sample));

  CHECK(round_trip(SupervisorNote{4.0, "forwarded SIGTERM"}) == JournalRecord(SupervisorNote{4.0, "forwarded SIGTERM"}));
  CHECK(round_trip(RunEnded{5.0, ExitStatus::killed(SIGKILL)}) == JournalRecord(RunEnded{5.0, ExitStatus::killed(SIGKILL)}));
}

TEST_CASE("a missing fact is written with its reason, never as zero") {
  ProcessDied died{1, 7, Missing{MissingReason::permission_denied, "no access"}, {"proc-scan"}};
  auto j = record_to_json(died);
  CHECK(j["status"]["missing"]["reason"] == "permission-denied");
  CHECK(j["status"]["missing"]["detail"] == "no access");
}

TEST_CASE("malformed records are refused with a reason, not thrown") {
  CHECK_FALSE(record_from_json(nlohmann::json::parse(R"({"type":"death"})")).has_value());
  CHECK_FALSE(record_from_json(nlohmann::json::parse(R"({"type":"martian","time":1})")).has_value());
  CHECK_FALSE(record_from_json(nlohmann::json::parse(R"({"type":"death","time":"x","pid":1})")).has_value());
  CHECK_FALSE(record_from_json(nlohmann::json::parse(R"([1,2,3])")).has_value());
  auto bad = record_from_json(nlohmann::json::parse(R"({"type":"sample","time":1,"node":{},"processes":[{"pid":"x"}]})"));
  REQUIRE_FALSE(bad.has_value());
  CHECK(bad.missing().reason == MissingReason::unparseable);
}
