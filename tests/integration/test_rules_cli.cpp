// The rule commands as a user meets them: their own rules with --rules, a
// broken rule file reported with its position, `judge` on saved evidence,
// `explain`, and `rules test` failing when a case fails.
#include <fstream>

#include <doctest/doctest.h>

#include "integration/harness.h"

namespace ftdiag::itest {
namespace {

void write_file(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

const char* kUserRule = R"({"rules": [{
  "id": "site-watchdog-kill", "cause": "external-kill", "confidence": 0.97,
  "when": {"fact": "death.signal", "eq": 9},
  "summary": "our watchdog kills stuck jobs with SIGKILL",
  "remediation": ["Check the watchdog's log."]
}]})";

// A job killed by SIGKILL, recorded and analyzed once: the saved report.
fs::path saved_report(const TempDir& tmp) {
  auto outcome = run(Launch{ftdiag_run(tmp / "job", crasher_argv("die", {"signal", "KILL"}))});
  REQUIRE_MESSAGE(outcome.killed_by(9), outcome.describe());
  auto analyzed = run(Launch{{ftdiag_binary().string(), "analyze", (tmp / "job").string(), "--format", "json"}});
  REQUIRE_MESSAGE(analyzed.exited_with(0), analyzed.describe());
  write_file(tmp / "report.json", analyzed.out);
  return tmp / "report.json";
}

}  // namespace

TEST_CASE("rules cli: judge re-runs the rules on a saved report, with the user's rules added") {
  TempDir tmp;
  const auto report = saved_report(tmp);
  write_file(tmp / "my-rules" / "site.json", kUserRule);
  auto judged = run(Launch{{ftdiag_binary().string(), "judge", report.string(), "--format", "json", "--rules",
                            (tmp / "my-rules").string()}});
  REQUIRE_MESSAGE(judged.exited_with(0), judged.describe());
  auto j = json::parse(judged.out);
  CHECK(j["verdict"]["rule"] == "site-watchdog-kill");
  CHECK(j["verdict"]["cause"] == "external-kill");
  // Without the user's rule the same evidence is not that verdict.
  auto plain = run(Launch{{ftdiag_binary().string(), "judge", report.string(), "--format", "json"}});
  REQUIRE_MESSAGE(plain.exited_with(0), plain.describe());
  CHECK(json::parse(plain.out)["verdict"]["rule"] != "site-watchdog-kill");
}

TEST_CASE("rules cli: a broken user rule stops the judging and names file, line and column") {
  TempDir tmp;
  write_file(tmp / "bad" / "typo.json", "{\"rules\": [{\n  \"id\": \"x\", \"cause\": \"external-kill\", \"confidence\": 0.5,\n"
                                          "  \"when\": {\"fact\": \"death.signl\", \"eq\": 9},\n"
                                          "  \"summary\": \"s\", \"remediation\": [\"r\"]}]}\n");
  auto listed = run(Launch{{ftdiag_binary().string(), "rules", "--rules", (tmp / "bad").string(), "list"}});
  CHECK_MESSAGE(listed.exited_with(5), listed.describe());
  CHECK_MESSAGE(listed.err.find("bad/typo.json:3:20 (/rules/0/when/fact): unknown fact \"death.signl\"") != std::string::npos,
                listed.err);
  auto linted = run(Launch{{ftdiag_binary().string(), "rules", "lint", (tmp / "bad" / "typo.json").string()}});
  CHECK_MESSAGE(linted.exited_with(1), linted.describe());
  CHECK(linted.out.find("unknown fact \"death.signl\"") != std::string::npos);
  auto good = run(Launch{{ftdiag_binary().string(), "rules", "lint", (fs::path(FTDIAG_SOURCE_DIR) / "rules").string()}});
  CHECK_MESSAGE(good.exited_with(0), good.describe());
}

TEST_CASE("rules cli: judge refuses input that is not evidence, with a message") {
  TempDir tmp;
  write_file(tmp / "garbage.json", "\x01\x02 not json");
  auto garbage = run(Launch{{ftdiag_binary().string(), "judge", (tmp / "garbage.json").string()}});
  CHECK_MESSAGE(garbage.exited_with(4), garbage.describe());
  CHECK(garbage.err.find("not valid JSON") != std::string::npos);
  CHECK(garbage.err.find("line 1, column 1") != std::string::npos);
  write_file(tmp / "array.json", "[1, 2]");
  auto array = run(Launch{{ftdiag_binary().string(), "judge", (tmp / "array.json").string()}});
  CHECK_MESSAGE(array.exited_with(4), array.describe());
  CHECK(array.err.find("not a JSON object") != std::string::npos);
  write_file(tmp / "other.json", R"({"schema_version": 99, "runs": []})");
  auto other = run(Launch{{ftdiag_binary().string(), "judge", (tmp / "other.json").string()}});
  CHECK_MESSAGE(other.exited_with(4), other.describe());
  CHECK(other.err.find("schema_version 99") != std::string::npos);
  auto missing = run(Launch{{ftdiag_binary().string(), "judge", (tmp / "nope.json").string()}});
  CHECK_MESSAGE(missing.exited_with(3), missing.describe());
}

TEST_CASE("rules cli: explain a cause, refuse an unknown one, rules test fails on a failing case") {
  auto explained = run(Launch{{ftdiag_binary().string(), "explain", "host-oom-checkpoint-save"}});
  REQUIRE_MESSAGE(explained.exited_with(0), explained.describe());
  CHECK(explained.out.find("oom-at-checkpoint-save-cgroup") != std::string::npos);
  CHECK(explained.out.find("stage3_gather_16bit_weights_on_model_save") != std::string::npos);
  auto unknown = run(Launch{{ftdiag_binary().string(), "explain", "gremlins"}});
  CHECK_MESSAGE(unknown.exited_with(2), unknown.describe());
  CHECK(unknown.err.find("container-oom") != std::string::npos);

  TempDir tmp;
  write_file(tmp / "cases" / "oom-at-cgroup-limit" / "wrong" / "facts.json", R"({"death.signal": 15})");
  write_file(tmp / "cases" / "oom-at-cgroup-limit" / "wrong" / "expect.json", R"({"fires": true})");
  auto tested = run(Launch{{ftdiag_binary().string(), "rules", "test", (tmp / "cases").string()}});
  CHECK_MESSAGE(tested.exited_with(1), tested.describe());
  CHECK(tested.out.find("0 passed, 1 failed") != std::string::npos);
}

TEST_CASE("rules cli: rules test refuses an expect.json that checks nothing or misspells a key") {
  // Facts on which oom-at-cgroup-limit fires: each case would pass if its
  // expectation were silently ignored.
  const char* kFires = R"({"death.signal": 9, "cgroup.limit_bytes": 1000, "cgroup.oom_kill": 1, "cgroup.peak_ratio": 1.0})";
  const std::pair<const char*, const char*> kBad[] = {
      {"misspelt", R"({"fires": true, "min_confidance": 0.99})"},
      {"empty", R"({})"},
      {"wrong-type", R"({"fires": "yes"})"},
      {"out-of-range", R"({"min_confidence": 80})"},
      {"unknown-cause", R"({"verdict": "gremlins"})"},
      {"not-an-object", R"([true])"},
  };
  for (const auto& [name, expect] : kBad) {
    CAPTURE(name);
    TempDir tmp;
    write_file(tmp / "cases" / "oom-at-cgroup-limit" / name / "facts.json", kFires);
    write_file(tmp / "cases" / "oom-at-cgroup-limit" / name / "expect.json", expect);
    auto tested = run(Launch{{ftdiag_binary().string(), "rules", "test", (tmp / "cases").string()}});
    CHECK_MESSAGE(tested.exited_with(1), tested.describe());
    CHECK_MESSAGE(tested.out.find("0 passed, 1 failed") != std::string::npos, tested.out);
    CHECK_MESSAGE(tested.out.find("expect.json") != std::string::npos, tested.out);
  }
  // The control: the same facts with a sound expectation pass.
  TempDir tmp;
  write_file(tmp / "cases" / "oom-at-cgroup-limit" / "sound" / "facts.json", kFires);
  write_file(tmp / "cases" / "oom-at-cgroup-limit" / "sound" / "expect.json", R"({"fires": true, "min_confidence": 0.5})");
  auto tested = run(Launch{{ftdiag_binary().string(), "rules", "test", (tmp / "cases").string()}});
  CHECK_MESSAGE(tested.exited_with(0), tested.describe(), tested.out);
}

}  // namespace ftdiag::itest
