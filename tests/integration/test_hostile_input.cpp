// Input built to break ftdiag: documents nested 100,000 deep, numbers that
// overflow a double, named pipes where files should be, paths that do not
// exist. Each must end in a clear message and a documented exit code
// (docs/cli.md), never a crash or a hang.
#include <sys/stat.h>

#include <fstream>
#include <string>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

constexpr int kExitChecksFailed = 1;
constexpr int kExitInputNotFound = 3;
constexpr int kExitInputUnreadable = 4;
constexpr int kExitRulesInvalid = 5;

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

Outcome ftdiag(const std::vector<std::string>& args, double seconds = kDeadlineSeconds) {
  std::vector<std::string> argv{ftdiag_binary().string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run(Launch{argv}, seconds);
}

// A real run's folder: a job killed by SIGKILL.
fs::path recorded_run(const TempDir& tmp) {
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"signal", "KILL"}))});
  REQUIRE_MESSAGE(outcome.killed_by(9), outcome.describe());
  auto runs = run_folders(tmp / "job");
  REQUIRE(runs.size() == 1);
  return runs.front();
}

const char* kRuleWithHugeNumber = R"({"rules": [{
  "id": "huge", "cause": "external-kill", "confidence": 0.9,
  "when": {"fact": "death.signal", "eq": 1e999},
  "summary": "never", "remediation": ["none"]
}]})";

}  // namespace

TEST_CASE("hostile input: judge on a valid report with 100,000 nested arrays inside exits 4 with the depth") {
  TempDir tmp;
  const auto run_dir = recorded_run(tmp);
  auto analyzed = ftdiag({"analyze", run_dir.string(), "--format", "json"});
  REQUIRE_MESSAGE(analyzed.exited_with(0), analyzed.describe());
  auto report = json::parse(analyzed.out);
  // Valid JSON everywhere, in a place the reader copies: a run's notes.
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  std::string text = report.dump();
  const std::string marker = "\"evidence\":{";
  const auto at = text.find(marker);
  REQUIRE(at != std::string::npos);
  text.insert(at + marker.size(), "\"deep\":" + deep + ",");
  write_file(tmp / "deep.json", text);
  auto judged = ftdiag({"judge", (tmp / "deep.json").string()});
  CHECK_MESSAGE(judged.exited_with(kExitInputUnreadable), judged.describe());
  CHECK(judged.err.find("nested deeper than 256 levels") != std::string::npos);
  CHECK(judged.err.find("deep.json") != std::string::npos);
}

TEST_CASE("hostile input: a rule comparing with 1e999 is a rule error with its position, in lint and in analyze") {
  TempDir tmp;
  write_file(tmp / "rules" / "huge.json", kRuleWithHugeNumber);
  auto lint = ftdiag({"rules", "lint", (tmp / "rules").string()});
  CHECK_MESSAGE(lint.exited_with(kExitChecksFailed), lint.describe());
  const std::string all = lint.out + lint.err;
  CHECK_MESSAGE(all.find("huge.json:3:") != std::string::npos, all);
  CHECK_MESSAGE(all.find("number out of range") != std::string::npos, all);

  const auto run_dir = recorded_run(tmp);
  auto analyzed = ftdiag({"analyze", run_dir.string(), "--rules", (tmp / "rules").string()});
  CHECK_MESSAGE(analyzed.exited_with(kExitRulesInvalid), analyzed.describe());
  CHECK(analyzed.err.find("number out of range") != std::string::npos);
}

TEST_CASE("hostile input: analyze does not block on a FIFO in place of console.log or journal.jsonl") {
  for (const char* name : {"console.log", "journal.jsonl"}) {
    CAPTURE(name);
    TempDir tmp;
    const auto run_dir = recorded_run(tmp);
    fs::remove(run_dir / name);
    REQUIRE(::mkfifo((run_dir / name).c_str(), 0600) == 0);
    // Nobody ever writes the FIFO: opening it for reading would block forever.
    auto analyzed = ftdiag({"analyze", run_dir.string(), "--format", "json"}, 20);
    REQUIRE_MESSAGE(analyzed.status.has_value(), "analyze blocked on the FIFO");
    // The evidence says which file could not be read, and why.
    CHECK_MESSAGE(analyzed.out.find((run_dir / name).string() + " is not a regular file") != std::string::npos,
                  analyzed.out, analyzed.err);
  }
}

TEST_CASE("hostile input: a path that does not exist says so and exits 3") {
  TempDir tmp;
  auto analyzed = ftdiag({"analyze", (tmp / "no-such-run").string()});
  CHECK_MESSAGE(analyzed.exited_with(kExitInputNotFound), analyzed.describe());
  CHECK(analyzed.err.find("does not exist") != std::string::npos);
  CHECK(analyzed.err.find("not a directory") == std::string::npos);
  auto judged = ftdiag({"judge", (tmp / "no-such.json").string()});
  CHECK_MESSAGE(judged.exited_with(kExitInputNotFound), judged.describe());
}

}  // namespace ftdiag::itest
