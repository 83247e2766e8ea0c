// `ftdiag analyze` of plain log folders a crashed job left: two nodes'
// torchrun consoles (tests/fixtures/logs/multi-host: rank 3 on node0 is
// SIGKILLed while saving a checkpoint, node1's ranks hit the NCCL watchdog ten
// minutes later), a single log file, and folders holding nothing to read.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

const fs::path kMultiHost = fs::path(FTDIAG_SOURCE_DIR) / "tests/fixtures/logs/multi-host";

Analysis analyze_json(const fs::path& path) {
  Analysis analysis;
  analysis.outcome = run(Launch{{ftdiag_binary().string(), "analyze", path.string(), "--format", "json", "--no-host-logs"}}, 60);
  if (analysis.outcome.exited_with(0)) {
    analysis.report = json::parse(analysis.outcome.out);
    analysis.document = analysis.report["evidence"];
  }
  return analysis;
}

json* finding_of_rule(json& report, const std::string& rule) {
  for (auto& finding : report["findings"]) {
    if (finding["rule"] == rule) return &finding;
  }
  return nullptr;
}

// The facts a finding cites: its evidence and the evidence of what supported it.
std::vector<json> cited_facts(json& finding) {
  std::vector<json> cited;
  for (auto& fact : finding["evidence"]) cited.push_back(fact);
  for (auto& support : finding["supporting"]) {
    for (auto& fact : support["evidence"]) cited.push_back(fact);
  }
  return cited;
}

json cited(json& finding, const std::string& name) {
  for (auto& fact : cited_facts(finding)) {
    if (fact["fact"] == name) return fact;
  }
  return nullptr;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

TEST_CASE("analyze logs: two nodes' consoles blame rank 3's death at a checkpoint save, not node1's NCCL timeouts") {
  auto analysis = analyze_json(kMultiHost);
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  auto& verdict = analysis.report["verdict"];
  CHECK_MESSAGE(verdict["cause"] == "host-oom-checkpoint-save", verdict.dump());
  REQUIRE(verdict["rule"].is_string());
  const std::string verdict_rule = verdict["rule"];

  json* blamed = finding_of_rule(analysis.report, verdict_rule);
  REQUIRE(blamed != nullptr);
  const json rank = cited(*blamed, "death.rank");
  CHECK_MESSAGE(rank["value"] == 3, blamed->dump());
  const json signal = cited(*blamed, "death.signal");
  REQUIRE_MESSAGE(signal["pointer"].is_string(), blamed->dump());
  CHECK(signal["value"] == 9);

  // The death, by file and line number: the kernel's OOM record of pid
  // 41234 in node0's kernel log decides it...
  const auto pointer = json::json_pointer(signal["pointer"].get<std::string>().c_str());
  REQUIRE(analysis.document.contains(pointer));
  auto& death_record = analysis.document[pointer];
  CHECK_MESSAGE(ends_with(death_record["from"]["file"].get<std::string>(), "multi-host/node0/kernel.log"), death_record.dump());
  CHECK_MESSAGE(death_record["from"]["line"] == 49, death_record.dump());
  CHECK(death_record["pid"] == 41234);
  // ...and torchrun's "failed (exitcode: -9) local_rank: 3 (pid: 41234)" on
  // node0 says which rank that pid was.
  const json role = cited(*blamed, "death.role");
  REQUIRE_MESSAGE(role["pointer"].is_string(), blamed->dump());
  auto& death_line = analysis.document[json::json_pointer(role["pointer"].get<std::string>().c_str())];
  CHECK_MESSAGE(ends_with(death_line["from"]["file"].get<std::string>(), "multi-host/node0/train.log"), death_line.dump());
  CHECK_MESSAGE(death_line["from"]["line"] == 104, death_line.dump());
  CHECK(death_line["text"].get<std::string>().find("failed (exitcode: -9) local_rank: 3 (pid: 41234)") != std::string::npos);

  // node1's watchdog timeouts came ten minutes later: a consequence of the death.
  json* timeouts = finding_of_rule(analysis.report, "nccl-timeout-after-a-death");
  REQUIRE_MESSAGE(timeouts != nullptr, analysis.report["findings"].dump());
  CHECK((*timeouts)["consequence_of"] == verdict_rule);
  CHECK(finding_of_rule(analysis.report, "nccl-watchdog-timeout") == nullptr);
  const json timeout_line = cited(*timeouts, "log.nccl_timeout");
  REQUIRE(timeout_line["pointer"].is_string());
  auto& watchdog = analysis.document[json::json_pointer(timeout_line["pointer"].get<std::string>().c_str())];
  CHECK_MESSAGE(ends_with(watchdog["from"]["file"].get<std::string>(), "multi-host/node1/train.log"), watchdog.dump());
  CHECK_MESSAGE(watchdog["from"]["line"] == 69, watchdog.dump());

  // Every recognised line of every log names its file and line.
  int events = 0;
  for (auto& host : analysis.document["hosts"]) {
    for (auto& log : host["logs"]) {
      for (auto& event : log["events"]) {
        ++events;
        CHECK_MESSAGE(event["from"]["file"].is_string(), event.dump());
        CHECK_MESSAGE(event["from"]["line"].is_number_integer(), event.dump());
        CHECK_MESSAGE(event["from"]["line"].get<long>() >= 1, event.dump());
      }
    }
  }
  CHECK(events > 20);
}

TEST_CASE("analyze logs: a single plain log file is analyzed like a folder") {
  auto analysis = analyze_json(kMultiHost / "node0/train.log");
  REQUIRE_MESSAGE(analysis.outcome.exited_with(0), analysis.outcome.describe());
  CHECK_MESSAGE(analysis.report["verdict"]["cause"] == "host-oom-checkpoint-save", analysis.report["verdict"].dump());
  auto& logs = analysis.document["hosts"][0]["logs"];
  REQUIRE(logs.size() == 1);
  CHECK(ends_with(logs[0]["from"]["file"].get<std::string>(), "multi-host/node0/train.log"));
}

TEST_CASE("analyze logs: a folder with nothing ftdiag can read exits 3 and says what it looked for") {
  TempDir tmp;
  fs::create_directories(tmp / "binary");
  std::string garbage(64 * 1024, '\0');
  std::uint32_t state = 2463534242u;  // xorshift: the same bytes on every run
  for (auto& byte : garbage) {
    state ^= state << 13;
    state ^= state >> 17;
    state ^= state << 5;
    byte = static_cast<char>(state & 0xff);
  }
  write_text(tmp / "binary" / "data.bin", garbage);
  fs::create_directories(tmp / "script");
  write_text(tmp / "script" / "train.py",
             "import torch\n\n\ndef main():\n    model = torch.nn.Linear(4, 4)\n    print(model)\n\n\n"
             "if __name__ == \"__main__\":\n    main()\n");
  for (const char* folder : {"binary", "script"}) {
    CAPTURE(folder);
    auto outcome = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / folder).string(), "--no-host-logs"}}, 60);
    CHECK_MESSAGE(outcome.exited_with(3), outcome.describe());
    CHECK_MESSAGE(outcome.err.find("is evidence ftdiag can read") != std::string::npos, outcome.err);
    CHECK_MESSAGE(outcome.err.find((tmp / folder).string()) != std::string::npos, outcome.err);
    CHECK(outcome.out.empty());
  }
}

}  // namespace ftdiag::itest
