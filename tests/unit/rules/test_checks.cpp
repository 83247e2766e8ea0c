// Checks: rules with "role": "check" and a severity, which name a risk found
// before anything died. They load with their own constraints, and judging
// keeps their findings apart from the verdict.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "expect_load_error.h"
#include "rule_text.h"
#include "rules/engine.h"

using namespace ftdiag;
using namespace ftdiag::rules;
using namespace ftdiag::rules::testing;

namespace {

const char* const kRuleStart = "{\n      \"id\"";  // where /rules/0 starts in rule_file()

// One rule of a multi-rule file: id, role/severity/cause keys, confidence and when.
std::string rule_json(const std::string& id, const std::string& keys, const std::string& when, double confidence = -1) {
  std::string text = R"({"id": ")" + id + "\", " + keys + (keys.empty() ? "" : ", ");
  if (confidence >= 0) text += "\"confidence\": " + std::to_string(confidence) + ", ";
  text += "\"when\": " + when + R"(, "summary": ")" + id + R"(: {death.signal}", "remediation": ["fix it"]})";
  return text;
}

RuleSet load(const std::vector<std::string>& rules) {
  std::string text = "{\"rules\": [\n";
  for (std::size_t i = 0; i < rules.size(); ++i) text += (i ? ",\n" : "") + rules[i];
  text += "\n]}\n";
  RuleSet set = parse_text(text);
  for (auto& error : check_refinements(set.rules)) set.errors.push_back(std::move(error));
  return set;
}

const std::string kSegv = R"({"fact": "death.signal", "eq": 11})";
const std::string kSmallShm = R"({"fact": "host.shm_total_bytes", "lt": 1073741824})";
const std::string kNoCores = R"({"fact": "host.core_bytes", "eq": 0})";
const std::string kMajorMismatch = R"({"fact": "torch.cuda_major", "gt": {"fact": "gpu.driver_cuda_major"}})";

const facts::FactSet kCheckFacts = facts_of({{"death.signal", std::int64_t{11}},
                                        {"host.shm_total_bytes", std::int64_t{64} << 20},
                                        {"host.core_bytes", std::int64_t{0}},
                                        {"torch.cuda_major", std::int64_t{13}},
                                        {"gpu.driver_cuda_major", std::int64_t{12}}});

std::vector<std::string> rule_ids(const std::vector<Finding>& findings) {
  std::vector<std::string> ids;
  for (const auto& f : findings) ids.push_back(f.rule);
  return ids;
}

}  // namespace

TEST_CASE("checks: a check loads with its severity, its confidence defaults to 1") {
  for (const auto& [text_value, severity] : std::vector<std::pair<std::string, Severity>>{
           {R"("error")", Severity::error}, {R"("warning")", Severity::warning}, {R"("info")", Severity::info}}) {
    CAPTURE(text_value);
    const RuleSet set = parse_text(rule_file({{"role", R"("check")"}, {"severity", text_value}, {"confidence", ""}}));
    INFO((set.errors.empty() ? std::string() : set.errors.front().describe()));
    REQUIRE(set.ok());
    REQUIRE(set.rules.size() == 1);
    CHECK(set.rules[0].role == RuleRole::check);
    CHECK(set.rules[0].severity == severity);
    CHECK(set.rules[0].confidence == doctest::Approx(1.0));
  }
  // A check may still say how sure it is.
  const RuleSet sure = parse_text(rule_file({{"role", R"("check")"}, {"severity", R"("warning")"}, {"confidence", "0.7"}}));
  REQUIRE(sure.ok());
  CHECK(sure.rules[0].confidence == doctest::Approx(0.7));
}

TEST_CASE("checks: severity is required of a check, and is one of error, warning, info") {
  const std::string missing = rule_file({{"role", R"("check")"}});
  expect_load_error(parse_text(missing), missing, "/rules/0", kRuleStart, "missing \"severity\"");
  const std::string wrong = rule_file({{"role", R"("check")"}, {"severity", R"("fatal")"}});
  expect_load_error(parse_text(wrong), wrong, "/rules/0/severity", "\"fatal\"", "\"error\", \"warning\" or \"info\"");
  const std::string empty = rule_file({{"role", R"("check")"}, {"severity", R"("")"}});
  expect_load_error(parse_text(empty), empty, "/rules/0/severity", "\"\"", "non-empty string");
  const std::string number = rule_file({{"role", R"("check")"}, {"severity", "2"}});
  expect_load_error(parse_text(number), number, "/rules/0/severity", "2\n", "non-empty string");
}

TEST_CASE("checks: only a check has a severity") {
  const std::string primary = rule_file({{"severity", R"("error")"}});
  expect_load_error(parse_text(primary), primary, "/rules/0/severity", "\"error\"", "only a check");
  const std::string explicit_primary = rule_file({{"role", R"("primary")"}, {"severity", R"("warning")"}});
  expect_load_error(parse_text(explicit_primary), explicit_primary, "/rules/0/severity", "\"warning\"", "only a check");
  const std::string consequence = rule_file({{"role", R"("consequence")"}, {"severity", R"("info")"}});
  expect_load_error(parse_text(consequence), consequence, "/rules/0/severity", "\"info\"", "only a check");
}

TEST_CASE("checks: the cause is optional for a check, required of every other rule") {
  const RuleSet check = parse_text(rule_file({{"cause", ""}, {"role", R"("check")"}, {"severity", R"("info")"}}));
  INFO((check.errors.empty() ? std::string() : check.errors.front().describe()));
  REQUIRE(check.ok());
  CHECK(check.rules[0].cause.empty());
  const RuleSet with_cause = parse_text(rule_file({{"cause", R"("shm-exhausted")"}, {"role", R"("check")"}, {"severity", R"("error")"}}));
  REQUIRE(with_cause.ok());
  CHECK(with_cause.rules[0].cause == "shm-exhausted");

  const std::string primary = rule_file({{"cause", ""}});
  expect_load_error(parse_text(primary), primary, "/rules/0", kRuleStart, "missing \"cause\"");
  const std::string consequence = rule_file({{"cause", ""}, {"role", R"("consequence")"}});
  expect_load_error(parse_text(consequence), consequence, "/rules/0", kRuleStart, "missing \"cause\"");
  // A cause a check names is checked like any other.
  const std::string unknown = rule_file({{"cause", R"("shm-full")"}, {"role", R"("check")"}, {"severity", R"("error")"}});
  expect_load_error(parse_text(unknown), unknown, "/rules/0/cause", "\"shm-full\"", "unknown cause \"shm-full\"");
}

TEST_CASE("checks: a check refines nothing, and nothing refines a check") {
  const std::string refining = rule_file({{"role", R"("check")"}, {"severity", R"("error")"}, {"refines", R"(["other-rule"])"}});
  expect_load_error(parse_text(refining), refining, "/rules/0/refines", "[\"other-rule\"]", "a check refines nothing");

  const RuleSet set = load({rule_json("the-check", R"("role": "check", "severity": "warning", "cause": "shm-exhausted")", kSmallShm),
                            rule_json("specific", R"("cause": "shm-exhausted", "refines": ["the-check"])", kSegv, 0.6)});
  const auto refused = std::find_if(set.errors.begin(), set.errors.end(), [](const LoadError& e) {
    return e.pointer == "/rules/1/refines" && e.message.find("\"the-check\"") != std::string::npos;
  });
  CHECK_MESSAGE(refused != set.errors.end(), (set.errors.empty() ? std::string("no error") : set.errors.front().describe()));
}

TEST_CASE("checks: judging puts check findings in checks, most severe first, never in findings or the verdict") {
  const RuleSet set = load({
      rule_json("info-check", R"("role": "check", "severity": "info")", kNoCores),
      rule_json("weak-warning", R"("role": "check", "severity": "warning", "cause": "shm-exhausted")", kSmallShm, 0.6),
      rule_json("error-check", R"("role": "check", "severity": "error", "cause": "cuda-driver-mismatch")", kMajorMismatch),
      rule_json("b-warning", R"("role": "check", "severity": "warning", "cause": "shm-exhausted")", kSmallShm),
      rule_json("a-warning", R"("role": "check", "severity": "warning")", kSmallShm),
      rule_json("not-firing", R"("role": "check", "severity": "error")", R"({"fact": "death.signal", "eq": 9})"),
      rule_json("the-crash", R"("cause": "framework-bug-segfault")", kSegv, 0.55),
  });
  INFO((set.errors.empty() ? std::string() : set.errors.front().describe()));
  REQUIRE(set.ok());
  const Judgement j = judge(set.rules, kCheckFacts);

  // error > warning > info; within a severity by confidence, then by id.
  CHECK(rule_ids(j.checks) == std::vector<std::string>{"error-check", "a-warning", "b-warning", "weak-warning", "info-check"});
  CHECK(j.checks[0].severity == Severity::error);
  CHECK(j.checks[1].severity == Severity::warning);
  CHECK(j.checks[4].severity == Severity::info);
  CHECK(j.checks[3].confidence == doctest::Approx(0.6));
  for (const auto& c : j.checks) {
    CAPTURE(c.rule);
    CHECK_FALSE(c.consequence);
    CHECK_FALSE(c.consequence_of.has_value());
    CHECK_FALSE(c.refined_by.has_value());
  }
  CHECK(j.checks[0].cause == "cuda-driver-mismatch");
  CHECK(j.checks[4].cause.empty());
  CHECK(j.checks[0].summary == "error-check: SIGSEGV (11)");
  CHECK(j.checks[0].remediation == std::vector<std::string>{"fix it"});

  // The death's findings hold the primary rule only, and it is the verdict.
  CHECK(rule_ids(j.findings) == std::vector<std::string>{"the-crash"});
  CHECK_FALSE(j.findings[0].severity.has_value());
  CHECK(j.verdict.rule == "the-crash");
  CHECK(j.verdict.cause == "framework-bug-segfault");
}

TEST_CASE("checks: a check never becomes the verdict, even alone and sure") {
  const RuleSet set = load({rule_json("error-check", R"("role": "check", "severity": "error", "cause": "cuda-driver-mismatch")", kMajorMismatch)});
  REQUIRE(set.ok());
  const Judgement j = judge(set.rules, kCheckFacts);
  REQUIRE(j.checks.size() == 1);
  CHECK(j.checks[0].confidence == doctest::Approx(1.0));
  CHECK(j.findings.empty());
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.rule.empty());
  CHECK(j.verdict.confidence == 0);
  CHECK(j.verdict.summary.find("cuda-driver-mismatch") == std::string::npos);  // not a "closest candidate" either
}

TEST_CASE("checks: a check's missing facts are not the verdict's missing facts") {
  const RuleSet set = load({
      rule_json("needs-driver", R"("role": "check", "severity": "error")",
                R"({"fact": "gpu.driver_version", "lt": {"fact": "cuda.build_min_driver"}})"),
      rule_json("needs-shm", R"("role": "check", "severity": "warning")", R"({"fact": "host.shm_available_bytes", "lt": 1048576})"),
      rule_json("needs-limit", R"("cause": "container-oom")",
                R"({"all": [{"fact": "death.signal", "eq": 11}, {"fact": "cgroup.limit_bytes", "gt": 0}]})", 0.6),
  });
  INFO((set.errors.empty() ? std::string() : set.errors.front().describe()));
  REQUIRE(set.ok());
  const Judgement j = judge(set.rules, kCheckFacts);
  CHECK(j.checks.empty());
  CHECK(j.findings.empty());
  CHECK(j.verdict.cause == "unknown");
  CHECK(j.verdict.missing_facts == std::vector<std::string>{"cgroup.limit_bytes"});
  CHECK(j.verdict.summary.find("gpu.driver_version") == std::string::npos);
  CHECK(j.verdict.summary.find("host.shm_available_bytes") == std::string::npos);
}

TEST_CASE("checks: support items of a check add their sentences") {
  const RuleSet set = load({rule_json(
      "with-support",
      R"("role": "check", "severity": "error", "support": [{"if": {"fact": "gpu.driver_cuda_major", "exists": true}, "weight": 0, "says": "the driver's CUDA is {gpu.driver_cuda_major}"}])",
      kMajorMismatch)});
  REQUIRE(set.ok());
  const Judgement j = judge(set.rules, kCheckFacts);
  REQUIRE(j.checks.size() == 1);
  REQUIRE(j.checks[0].supporting.size() == 1);
  CHECK(j.checks[0].supporting[0].says == "the driver's CUDA is 12");
  CHECK(j.checks[0].confidence == doctest::Approx(1.0));
  // The facts that made it fire are cited.
  std::vector<std::string> cited;
  for (const auto& c : j.checks[0].evidence) cited.push_back(c.fact);
  std::sort(cited.begin(), cited.end());
  CHECK(cited == std::vector<std::string>{"gpu.driver_cuda_major", "torch.cuda_major"});
}

TEST_CASE("checks: worst_severity is that of the most severe check") {
  const auto severity_of = [](const std::vector<std::string>& rules) {
    const RuleSet set = load(rules);
    REQUIRE(set.ok());
    return worst_severity(judge(set.rules, kCheckFacts));
  };
  const std::string info = rule_json("info-check", R"("role": "check", "severity": "info")", kNoCores);
  const std::string warning = rule_json("warning-check", R"("role": "check", "severity": "warning")", kSmallShm);
  const std::string error = rule_json("error-check", R"("role": "check", "severity": "error")", kMajorMismatch);
  const std::string silent_error = rule_json("silent-error", R"("role": "check", "severity": "error")", R"({"fact": "death.signal", "eq": 9})");
  const std::string primary = rule_json("the-crash", R"("cause": "framework-bug-segfault")", kSegv, 0.9);

  CHECK(severity_of({primary}) == std::nullopt);  // no check fired: a verdict is not a severity
  CHECK(severity_of({silent_error}) == std::nullopt);
  CHECK(severity_of({info}) == Severity::info);
  CHECK(severity_of({info, warning}) == Severity::warning);
  CHECK(severity_of({warning, info, silent_error}) == Severity::warning);
  CHECK(severity_of({info, error, warning, primary}) == Severity::error);
  CHECK(worst_severity(Judgement{}) == std::nullopt);
}

TEST_CASE("checks: to_string(Severity)") {
  CHECK(to_string(Severity::error) == "error");
  CHECK(to_string(Severity::warning) == "warning");
  CHECK(to_string(Severity::info) == "info");
}

TEST_CASE("checks: the project's checks load with their severities") {
  const RuleSet set = load_rules(project_rules_dir());
  REQUIRE(set.ok());
  const auto find = [&](const std::string& id) -> const Rule* {
    auto it = std::find_if(set.rules.begin(), set.rules.end(), [&](const Rule& r) { return r.id == id; });
    return it == set.rules.end() ? nullptr : &*it;
  };
  const Rule* major = find("cuda-build-needs-newer-major-driver");
  REQUIRE(major != nullptr);
  CHECK(major->role == RuleRole::check);
  CHECK(major->severity == Severity::error);
  CHECK(major->confidence == doctest::Approx(1.0));
  const Rule* minor = find("cuda-build-newer-minor-than-driver");
  REQUIRE(minor != nullptr);
  CHECK(minor->severity == Severity::warning);
  const Rule* cores = find("no-core-dumps");
  REQUIRE(cores != nullptr);
  CHECK(cores->severity == Severity::info);
  CHECK(cores->cause.empty());
  // Every check has a severity on purpose: no check relies on the default.
  for (const auto& r : set.rules) {
    CAPTURE(r.id);
    if (r.role != RuleRole::check) continue;
    CHECK(r.refines.empty());
  }
}
