#include <doctest/doctest.h>

#include <csignal>

#include "evidence/document_json.h"
#include "evidence/run_builder.h"

using namespace ftdiag;
using namespace ftdiag::evidence;

TEST_CASE("the evidence document reads back what it writes") {
  RunBuilder builder;
  RunStarted start;
  start.time = 10;
  start.host = "n1";
  start.job_pid = 7;
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
  EvidenceDocument document;
  document.generator = "ftdiag test";
  document.source = "/tmp/x";
  document.runs.push_back(std::move(builder).finish("n1-pid1"));
  document.runs[0].console.tail.push_back({11.5, 'e', "Segmentation fault"});
  document.runs[0].console.line_count = 1;

  auto j = document_to_json(document);
  CHECK(j["schema_version"] == kSchemaVersion);
  CHECK(j["runs"][0]["complete"] == true);
  auto back = document_from_json(nlohmann::json::parse(j.dump()));
  REQUIRE(back.has_value());
  CHECK(back.value() == document);
}

TEST_CASE("documents of another schema version or shape are refused clearly") {
  auto future = document_from_json(nlohmann::json{{"schema_version", kSchemaVersion + 1}});
  REQUIRE_FALSE(future.has_value());
  CHECK(future.missing().reason == MissingReason::unsupported);
  auto garbage = document_from_json(nlohmann::json::parse(R"({"schema_version":1,"runs":"no"})"));
  REQUIRE_FALSE(garbage.has_value());
  CHECK(garbage.missing().reason == MissingReason::unparseable);
}
